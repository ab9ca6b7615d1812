/// The console's only stylesheet and script, served from the binary (no build step, no npm). The
/// script does one thing: "select all" boxes for bulk re-drive and discard.
enum ConsoleAssets {
    static let css = """
        body{font:14px/1.4 system-ui,sans-serif;margin:0;color:#1d1d1f;background:#fafafa}
        header{display:flex;gap:12px;align-items:center;flex-wrap:wrap;padding:8px 16px;background:#1d1d1f;color:#fff}
        header a{color:#9cf;text-decoration:none}header .who{margin-left:auto;color:#ccc}
        form.search{display:inline-flex;gap:4px}main{padding:8px 16px}
        table{border-collapse:collapse;margin:6px 0 18px;background:#fff;font-size:12px}
        th,td{border:1px solid #ddd;padding:3px 6px;text-align:left;vertical-align:top;max-width:360px;overflow-wrap:anywhere}
        th{background:#eee;white-space:nowrap}.flash{background:#e6f4ea;border:1px solid #9c9;padding:6px}.empty{color:#888}
        .error{background:#fde8e8;border:1px solid #e99;padding:6px}
        form.action{display:inline-flex;gap:4px;margin:2px 0}h2{margin-top:22px;font-size:16px}
        .paused{color:#b00;font-weight:bold}.live{color:#070}
        """
    static let js = """
        document.addEventListener('DOMContentLoaded', function () {
          document.querySelectorAll('input[data-select-all]').forEach(function (box) {
            box.addEventListener('change', function () {
              document.querySelectorAll('input[name="' + box.dataset.selectAll + '"]').forEach(function (b) { b.checked = box.checked; });
            });
          });
        });
        """
}
