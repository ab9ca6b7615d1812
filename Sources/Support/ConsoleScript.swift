/// The console's only script, served from the binary (CSP: no inline script). Two things:
/// - "select all" boxes for bulk re-drive and discard; a table box that scrolls sideways made a
///   tab stop (a region named by its heading), so a keyboard reaches what it hides;
/// - the live refresh of a page whose frame has a `data-live-every` Refresh link (the overview,
///   the workers page): every that many seconds it fetches the same address and replaces each
///   part marked `data-live` with the same part of the fresh page. It never replaces a part that
///   holds a form or a field, and it waits — saying so — while a field has focus or holds what an
///   operator changed, so a reason being typed is never lost. It skips a hidden tab. It counts
///   its refreshes in `<body data-live-refreshes>` (the browser journeys read it). What an
///   operator opened stays open (a `<details>` with an id: a chart's numbers), and a focused
///   summary keeps the focus. Without JavaScript the page works as before: the Refresh link
///   reloads it.
extension ConsoleAssets {
    static let js = """
        document.addEventListener('DOMContentLoaded', function () {
          document.querySelectorAll('input[data-select-all]').forEach(function (box) {
            box.addEventListener('change', function () {
              document.querySelectorAll('input[name="' + box.dataset.selectAll + '"]').forEach(function (b) { b.checked = box.checked; });
            });
          });

          // A table box that scrolls sideways is a tab stop, so a keyboard can scroll it; one that
          // fits is not (axe-core's scrollable-region-focusable).
          function scrollers() {
            document.querySelectorAll('.scroll').forEach(function (box) {
              if (box.scrollWidth > box.clientWidth + 1) {
                if (!box.hasAttribute('tabindex')) {
                  var table = box.querySelector('table');
                  var heading = box.previousElementSibling;
                  box.setAttribute('tabindex', '0');
                  box.setAttribute('role', 'region');
                  box.setAttribute('aria-label', ((heading && /^H[1-6]$/.test(heading.tagName) && heading.textContent) ||
                    (table && table.id) || 'table') + ' (scrolls sideways)');
                }
              } else if (box.getAttribute('tabindex') === '0') {
                box.removeAttribute('tabindex'); box.removeAttribute('role'); box.removeAttribute('aria-label');
              }
            });
          }
          scrollers();
          window.addEventListener('resize', scrollers);

          var link = document.querySelector('[data-live-every]');
          if (!link || !window.fetch || !window.DOMParser) return;
          var status = document.querySelector('[data-live-status]');
          var every = Math.max(1, Number(link.dataset.liveEvery) || 5) * 1000;
          var fields = 'input, select, textarea';
          var refreshes = 0;
          function say(text) { if (status) status.textContent = text; }
          function changed(field) {
            if (field.type === 'hidden' || field.type === 'submit' || field.type === 'button') return false;
            if (field.type === 'checkbox' || field.type === 'radio') return field.checked !== field.defaultChecked;
            if (field.tagName === 'SELECT') {
              return Array.prototype.some.call(field.options, function (o) { return o.selected !== o.defaultSelected; });
            }
            return field.value !== field.defaultValue;
          }
          function typing() {
            var active = document.activeElement;
            if (active && active.matches && active.matches(fields)) return true;
            return Array.prototype.some.call(document.querySelectorAll(fields), changed);
          }
          function refresh() {
            if (document.hidden) return;
            if (typing()) { say('Live updates paused while you type.'); return; }
            fetch(window.location.href, { credentials: 'same-origin', headers: { 'Accept': 'text/html' } })
              .then(function (response) {
                if (!response.ok) throw new Error('HTTP ' + response.status);
                return response.text();
              })
              .then(function (html) {
                if (typing()) { say('Live updates paused while you type.'); return; }
                var fresh = new DOMParser().parseFromString(html, 'text/html');
                document.querySelectorAll('[data-live]').forEach(function (part) {
                  var next = fresh.querySelector('[data-live="' + CSS.escape(part.dataset.live) + '"]');
                  if (!next || next.querySelector('form, ' + fields) || part.querySelector('form, ' + fields)) return;
                  var node = document.importNode(next, true);
                  part.querySelectorAll('details[open][id]').forEach(function (d) {
                    var same = node.querySelector('#' + CSS.escape(d.id));
                    if (same) same.open = true;
                  });
                  var focused = document.activeElement, refocus = null;
                  if (focused && part.contains(focused) && focused.tagName === 'SUMMARY' && focused.parentElement.id) {
                    refocus = node.querySelector('#' + CSS.escape(focused.parentElement.id) + ' > summary');
                  }
                  part.replaceWith(node);
                  if (refocus) refocus.focus();
                });
                scrollers();
                refreshes += 1;
                document.body.dataset.liveRefreshes = String(refreshes);
                say('Live: updated at ' + new Date().toLocaleTimeString() + '.');
              })
              .catch(function (error) { say('Live update failed (' + error.message + '); trying again.'); });
          }
          say('Live: figures update every ' + every / 1000 + ' s.');
          setInterval(refresh, every);
        });
        """
}
