import { launchChromium } from '/work/wt-i34/site/scripts/chromium.js';
import { serveStatic } from '/work/wt-i34/site/scripts/static-server.js';
const server = await serveStatic('/tmp/i34-site', '/');
const b = await launchChromium({ viewport: { width: 390, height: 844 } });
const page = await b.context.newPage();
for (const p of process.argv.slice(2)) {
  await page.goto(server.url + p);
  const r = await page.evaluate(`(() => {
    const wide = Array.from(document.querySelectorAll('.table-wrap, .chart-frame')).filter((e) => e.scrollWidth > e.clientWidth + 1).map((e) => (e.getAttribute('aria-label') || e.className) + ' ' + e.scrollWidth + '>' + e.clientWidth);
    const labels = Array.from(document.querySelectorAll('figure.chart svg text')).map((t) => t.getBoundingClientRect().height).filter((h) => h > 0);
    return { height: document.documentElement.scrollHeight, scroll: document.documentElement.scrollWidth, wide, minText: labels.length ? Math.min(...labels) : null, texts: labels.length };
  })()`);
  console.log(p, JSON.stringify(r));
  await page.screenshot({ path: '/tmp/i34-' + (p.replace(/\W+/g, '_') || 'index') + '.png' });
}
await b.close(); await server.close();
