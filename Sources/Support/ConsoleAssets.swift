/// The console's only stylesheet, served from the binary (no build step, no npm) beside its only
/// script (`ConsoleScript`); the pages' CSP allows nothing inline. Tables never squeeze a column to
/// a letter a line: figures, times, ids and badges stay on one line (`k-…` classes, `ConsoleColumn`),
/// words wrap at spaces only, and a table wider than the window scrolls in its own box. Holds from
/// a phone (the media query) to a wide screen; one row of figures is a set of tiles that wrap.
/// Accessible (axe-core, in the browser journeys): text at 4.5:1 at least (muted text #595959),
/// a skip link that shows when focused, and every focused control outlined (`:focus-visible`).
enum ConsoleAssets {
    static let css = """
        *{box-sizing:border-box}
        body{font:14px/1.45 system-ui,sans-serif;margin:0;color:#1d1d1f;background:#fafafa}
        header{display:flex;gap:8px 16px;align-items:center;flex-wrap:wrap;padding:8px 16px;background:#1d1d1f;color:#fff}
        header nav{display:flex;gap:4px 12px;flex-wrap:wrap}
        header a{color:#9cf;text-decoration:none}header a:hover,header a:focus{text-decoration:underline}
        header .who{margin-left:auto;color:#ccc}
        form.search{display:inline-flex;gap:4px}form.search input{width:17em}
        main{padding:8px 16px 32px}
        h1{font-size:24px;margin:12px 0;overflow-wrap:anywhere}h2{margin:22px 0 6px;font-size:16px}
        a{color:#0645ad}
        .scroll{overflow-x:auto;max-width:100%;margin:6px 0 18px}
        table{border-collapse:collapse;background:#fff;font-size:13px}
        th,td{border:1px solid #ddd;padding:4px 8px;text-align:left;vertical-align:top}
        thead th{background:#f0f0f3;font-weight:600;white-space:nowrap}
        th[title]{text-decoration:underline dotted #999;cursor:help}
        table.fields th{background:#f6f6f8;font-weight:600;white-space:nowrap}table.fields td.k-number{text-align:left}
        .k-number{text-align:right;white-space:nowrap;font-variant-numeric:tabular-nums}
        .k-time,.k-id,.k-state,.k-action{white-space:nowrap}
        td.k-id{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;font-size:12px}
        .k-prose{min-width:14em;max-width:36em;overflow-wrap:break-word}
        .k-json{min-width:18em;max-width:40em}
        .k-json code{display:block;font-size:11px;overflow-wrap:anywhere}.k-json summary{cursor:pointer;color:#0645ad}
        .json-key{color:#595959}
        .k-action form.action{flex-wrap:nowrap;margin:0}
        table.transposed tbody th{background:#f6f6f8;font-weight:600;white-space:nowrap}
        table.transposed td{min-width:8em}
        .figures{display:flex;flex-wrap:wrap;gap:8px;margin:6px 0 18px;padding:0}
        .figure{background:#fff;border:1px solid #ddd;border-radius:6px;padding:6px 12px;min-width:8.5em}
        .figure dt{font-size:12px;color:#595959;white-space:nowrap}
        .figure dd{margin:2px 0 0;font-size:20px;font-weight:600;text-align:left}
        time{white-space:nowrap}
        .badge{display:inline-block;padding:0 8px;border-radius:9px;font-size:12px;font-weight:600;line-height:18px;white-space:nowrap;background:#e9e9ee;color:#333}
        .state-granted,.state-already_granted,.state-applied,.state-delivered,.state-sent,.state-fulfilled,.state-active,.state-synced,
        .state-live,.state-running,.state-enabled,.state-on,.state-yes{background:#e2f3e6;color:#175f2c}
        .state-verifying,.state-applying,.state-delivering,.state-sending,.state-syncing{background:#e3edfb;color:#1c4c8c}
        .state-timed_out,.state-resubmit,.state-billing_retry,.state-grace_period,.state-no_consent,.state-owned_elsewhere,
        .state-silent,.state-disabled{background:#fcefd6;color:#774700}
        .state-failed,.state-rejected,.state-quarantined,.state-revoked,.state-paused{background:#fde5e5;color:#9e1a1a}
        .flash{background:#e6f4ea;border:1px solid #9c9;padding:6px}.empty{color:#595959}
        .error{background:#fde8e8;border:1px solid #e99;padding:6px}
        .fleet{font-size:15px}
        .refresh{font-size:12px;color:#595959;margin:0 0 8px}.refresh .live-status{margin-left:6px}
        form.action,form.filter{display:inline-flex;flex-wrap:wrap;align-items:center;gap:4px;margin:2px 8px 2px 0}
        input,select,button{font:inherit;font-size:13px}input[type=number]{width:12em}
        .pager{display:flex;flex-wrap:wrap;gap:4px 14px;align-items:baseline;margin:-10px 0 18px;font-size:13px;color:#595959}
        .pager .sizes{margin-left:auto}.order{font-size:12px;color:#595959;margin:4px 0}
        .matched{font-size:15px;background:#eef3fb;border:1px solid #b9cbe8;padding:6px 10px}.matched.none{background:#f6f6f8;border-color:#ddd}
        ol.timeline{list-style:none;padding:0;margin:6px 0 18px;border-left:2px solid #ddd}
        ol.timeline li{padding:4px 0 4px 12px;position:relative}
        ol.timeline li::before{content:"";position:absolute;left:-6px;top:10px;width:10px;height:10px;border-radius:50%;background:#bbb}
        ol.timeline .when{display:inline-block;min-width:6.5em;color:#595959}ol.timeline .detail{color:#595959;overflow-wrap:anywhere}
        .charts{display:grid;grid-template-columns:repeat(auto-fit,minmax(min(100%,420px),1fr));gap:12px;margin:6px 0 18px}
        figure.chart{margin:0;background:#fff;border:1px solid #ddd;border-radius:6px;padding:8px;max-width:760px}
        figure.chart figcaption{font-weight:600;margin-bottom:4px}.chart-svg{width:100%;height:auto;display:block}
        .chart-grid{stroke:#e4e4e8;stroke-width:1}.chart-axis{stroke:#767676;stroke-width:1}.chart-tick{font-size:11px;fill:#595959}
        .chart-s0{fill:#2e7d32;background:#2e7d32}.chart-s1{fill:#b26a00;background:#b26a00}.chart-s2{fill:#c62828;background:#c62828}
        .chart-s3{fill:#6a1b9a;background:#6a1b9a}.chart-s4{fill:#1565c0;background:#1565c0}.chart-s5{fill:#555;background:#555}
        .chart-line{fill:none;stroke-width:2}.chart-line.chart-s0{stroke:#2e7d32}.chart-line.chart-s1{stroke:#b26a00}.chart-line.chart-s2{stroke:#c62828}
        .chart-line.chart-s3{stroke:#6a1b9a}.chart-line.chart-s4{stroke:#1565c0}.chart-line.chart-s5{stroke:#555}
        .chart-legend{list-style:none;display:flex;flex-wrap:wrap;gap:2px 14px;padding:0;margin:4px 0;font-size:12px}
        .chart-key{display:inline-block;width:10px;height:10px;margin-right:4px;border-radius:2px}
        .chart-empty{color:#595959;border:1px dashed #ccc;padding:18px;text-align:center;margin:0}
        .chart-numbers summary{cursor:pointer;color:#0645ad;font-size:12px}.chart-window{font-size:13px;margin:12px 0 4px}
        .caveats{background:#f6f6f8;border:1px solid #ddd;padding:4px 12px;font-size:13px;max-width:60em}
        .skip{position:absolute;left:-9999px;top:0}.skip:focus{left:8px;top:8px;z-index:10;padding:6px 12px;background:#fff;color:#0645ad;border-radius:4px}
        :focus-visible{outline:3px solid #1a5fb4;outline-offset:2px}header :focus-visible{outline-color:#9cf}main:focus{outline:none}
        .scroll[tabindex]:focus-visible{outline-offset:-3px}
        @media (max-width:640px){
          header{padding:8px}header .who{margin-left:0}
          form.search{display:flex;width:100%}form.search input{flex:1;width:auto;min-width:0}
          main{padding:6px 8px 24px}h1{font-size:20px}
          form.action,form.filter{display:flex;width:100%}form.action input,form.filter input{flex:1 1 9em;min-width:0}
          table{font-size:12px}th,td{padding:3px 6px}
          .figure{min-width:0;flex:1 1 28%;padding:4px 8px}.figure dt{font-size:11px}.figure dd{font-size:17px}
          table.transposed tbody th{white-space:normal;min-width:8em}table.transposed td{min-width:5em}
        }
        """
}
