/**
 * The playground as a person uses it: headless Chromium (Debian's `chromium`, driven by
 * playwright-core) against createApp on an ephemeral loopback port with the real pruning core.
 * Skipped only on a developer machine without Chromium; under CI it always runs.
 */

import { existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPruner } from '../../src/index.js';
import { createApp } from '../../src/server/app.js';
import { type Listening, listen } from '../../src/server/listen.js';
import { inlineRunner } from '../../src/server/runner.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const available = existsSync(CHROMIUM);
const SCREENSHOT = process.env.SKIM_SCREENSHOT ?? join(tmpdir(), 'skim-playground.png');

/**
 * What does not fit a page: the page wider than the window, a panel wider than its box, an element
 * out of the window or a form control out of its panel. Contents of scroll boxes (the code views,
 * a textarea's text) scroll inside them and are not counted, the boxes themselves are.
 */
async function misfits(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const out: string[] = [];
    const vw = document.documentElement.clientWidth;
    const name = (e: Element) => `${e.tagName.toLowerCase()}${e.id ? `#${e.id}` : ''}${e.className ? `.${String(e.className).replace(/ /g, '.')}` : ''}`;
    if (document.documentElement.scrollWidth > vw) out.push(`page ${document.documentElement.scrollWidth} > ${vw}`);
    for (const panel of document.querySelectorAll('header, main, section')) {
      if (panel.scrollWidth > panel.clientWidth) out.push(`${name(panel)} scrollWidth ${panel.scrollWidth} > ${panel.clientWidth}`);
    }
    const scrolls = (e: Element) => ['auto', 'scroll', 'hidden'].includes(getComputedStyle(e).overflowX);
    for (const e of document.body.querySelectorAll('*')) {
      const r = e.getBoundingClientRect();
      if (r.width === 0 && r.height === 0) continue; // not rendered
      let inside = e.parentElement;
      while (inside && !scrolls(inside)) inside = inside.parentElement;
      if (inside) continue;
      if (r.left < -0.5 || r.right > vw + 0.5) out.push(`${name(e)} spans ${r.left.toFixed(0)}..${r.right.toFixed(0)} of ${vw}`);
      const panel = e.closest('section');
      if (panel && e.matches('input, select, textarea, button, fieldset')) {
        const p = panel.getBoundingClientRect();
        if (r.left < p.left - 0.5 || r.right > p.right + 0.5)
          out.push(`${name(e)} spans ${r.left.toFixed(0)}..${r.right.toFixed(0)} outside its panel ${p.left.toFixed(0)}..${p.right.toFixed(0)}`);
      }
    }
    return out;
  });
}

// One user's walk through one page, in order (each step starts where the last left the page): never shuffled.
describe.skipIf(!available && !process.env.CI)('playground in headless Chromium', { shuffle: false }, () => {
  let server: Listening;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    const pruner = createPruner();
    const app = createApp({ runner: inlineRunner(pruner), model: (await pruner.scorer()).name, log: () => {} });
    server = await listen(app, '127.0.0.1', 0);
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update'],
    });
    page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
    await page.goto(`${server.url}/`);
  });

  afterAll(async () => {
    await browser?.close();
    await server?.close(1000);
  });

  async function skim(): Promise<{ tokensIn: number; tokensOut: number; kept: number; total: number }> {
    const before = await page.locator('#tokens').textContent();
    await page.click('#run');
    await page.waitForFunction(
      (prev) => !document.querySelector('#run')!.hasAttribute('disabled') && document.querySelector('#tokens')!.textContent !== prev,
      before,
    );
    const [tokensIn, tokensOut] = (await page.locator('#tokens').textContent())!.split('→').map((s) => Number(s.replace(/[^\d]/g, '')));
    const [kept, total] = (await page.locator('#lines').textContent())!.split('/').map((s) => Number(s.trim()));
    return { tokensIn, tokensOut, kept, total };
  }

  it('loads with the bundled examples to pick from', async () => {
    expect(await page.title()).toBe('skim playground');
    // The list is fetched after the page loads.
    await expect
      .poll(() => page.locator('#example option').allTextContents())
      .toEqual(expect.arrayContaining(['http_session.py', 'rate_limiter.ts', 'lru_cache.go']));
    await expect.poll(() => page.locator('#version').textContent()).toMatch(/^v\d+\.\d+\.\d+ · /);
    expect(await page.locator('#example option').allTextContents()).toContain('logging.py');
    // Nothing has run: no result labels, no view switch, no legend.
    for (const label of await page.locator('.stat .label').all()) expect(await label.isVisible()).toBe(false);
    for (const id of ['#stats', '#viewSwitch', '#legend', '#warnings']) expect(await page.locator(id).isVisible()).toBe(false);
  });

  it('prunes an example for its question: kept lines, collapsed markers, score gutter, token counts', async () => {
    await page.selectOption('#example', 'playground-http_session.py');
    await expect.poll(() => page.inputValue('#code')).toMatch(/class Session/);
    expect(await page.inputValue('#query')).toMatch(/proxy/);

    const r = await skim();
    expect(r.tokensOut).toBeGreaterThan(0);
    expect(r.tokensOut).toBeLessThan(r.tokensIn);
    expect(r.kept).toBeLessThan(r.total);

    // The line a person is looking for is visible, with its score in the gutter.
    const selectRow = page.locator('.line.kept', { hasText: 'def select_proxy(self, url: str)' });
    await expect.poll(() => selectRow.count()).toBe(1);
    expect(await selectRow.isVisible()).toBe(true);
    expect(await selectRow.locator('.val').textContent()).toMatch(/^(\d\.\d\d|\de-\d+)$/);
    // Adaptive mode: bars are on a log scale where half a bar is the threshold, so a line kept
    // for its score fills at least half of its bar, and the legend names the threshold.
    expect(await page.locator('.legend').textContent()).toMatch(/half a bar = the threshold (\d\.\d\d|\de-\d+)/);
    const width = (row: typeof selectRow) => row.locator('.bar i').evaluate((e) => (e as HTMLElement).style.width);
    expect(parseFloat(await width(selectRow))).toBeGreaterThanOrEqual(50);
    // The legend sits above the lines it explains, and each bar's tooltip places its score against the threshold.
    const legendBox = (await page.locator('#legend').boundingBox())!;
    expect(legendBox.y + legendBox.height).toBeLessThanOrEqual((await page.locator('#view').boundingBox())!.y);
    expect(await page.locator('#legend').textContent()).toMatch(/log scale .*a full bar = 100x it, an empty one = 1\/100 of it/);
    const threshold = /half a bar = the threshold (\S+) /.exec((await page.locator('#legend').textContent())!)![1];
    expect(await selectRow.locator('.gutter').getAttribute('title')).toMatch(new RegExp(`^keep score \\S+, at or above the threshold ${threshold}`));

    // Omitted ranges are collapsed to markers that name the range; no omitted line is shown.
    const markers = page.locator('.marker');
    expect(await markers.count()).toBeGreaterThan(0);
    const first = (await markers.first().locator('.text').textContent())!;
    const m = /… (\d+) lines? omitted \((\d+)-(\d+)\)/.exec(first);
    expect(m).not.toBeNull();
    const [count, from, to] = [Number(m![1]), Number(m![2]), Number(m![3])];
    expect(to - from + 1).toBe(count);
    expect(await page.locator('.line.omitted:visible').count()).toBe(0);

    // Clicking a marker shows exactly the lines it hid, with their original numbers.
    await markers.first().click();
    const shown = page.locator('.line.omitted:visible');
    expect(await shown.count()).toBe(count);
    expect(await shown.first().getAttribute('data-line')).toBe(String(from));
    await page.screenshot({ path: SCREENSHOT, fullPage: false });
    await markers.first().click();
    expect(await page.locator('.line.omitted:visible').count()).toBe(0);
  });

  it('respects the 8x budget and shows the text the agent would read', async () => {
    await page.check('input[name=mode][value="8"]');
    const r = await skim();
    expect(r.tokensOut).toBeLessThanOrEqual(Math.floor(r.tokensIn / 8));
    // Budget mode has no threshold: the best line fills its bar.
    expect(await page.locator('.legend').textContent()).toMatch(/a full bar = the best line of this file \((\d\.\d\d|\d\.\d\de-\d+)\)/);
    expect(await page.locator('.line.kept .gutter').first().getAttribute('title')).toMatch(/the best line scores \S+ \(budget mode, no threshold\)/);
    const widths = await page.locator('.line.kept .bar i').evaluateAll((es) => es.map((e) => parseFloat((e as HTMLElement).style.width)));
    expect(Math.max(...widths)).toBe(100);
    await page.check('input[name=view][value=text]');
    const agentText = await page.locator('#agentText').textContent();
    expect(await page.locator('#agentText').isVisible()).toBe(true);
    expect(agentText).toMatch(/# \.\.\. \d+ lines omitted \(\d+-\d+\)/);
    await page.check('input[name=view][value=lines]');
    await page.check('input[name=mode][value=adaptive]');
  });

  it('pastes own code and explains an error plainly', async () => {
    await page.selectOption('#example', '');
    await page.fill('#code', '');
    await page.click('#run');
    expect(await page.locator('#error').textContent()).toMatch(/Paste some code/);
    const code = Array.from({ length: 60 }, (_, i) => `def f${i}(x):\n    return x + ${i}\n`).join('\n');
    await page.fill('#code', code);
    await page.fill('#path', 'funcs.py');
    await page.fill('#query', 'What does f42 add to its argument?');
    const r = await skim();
    expect(r.total).toBe(code.split('\n').length - 1);
    expect(await page.locator('.line.kept', { hasText: 'def f42(x):' }).count()).toBe(1);
    expect(await page.locator('#error').isVisible()).toBe(false);
    // adaptive is the calibrated threshold: the answer is kept, most of the rest is not
    expect(r.kept).toBeLessThan(r.total / 2);
    expect(await page.locator('#legend').textContent()).toMatch(/half a bar = the threshold/);
  });

  it('gives each example its own goal hint, and keeps a typed goal only on your own code', async () => {
    const pick = async (name: string, code: RegExp) => {
      await page.selectOption('#example', name);
      await expect.poll(() => page.inputValue('#code')).toMatch(code);
    };
    await pick('', /def f42/);
    await page.fill('#query', 'my own question');
    expect(await page.inputValue('#query')).toBe('my own question');

    await pick('playground-http_session.py', /class Session/);
    expect(await page.inputValue('#query')).toMatch(/pick the proxy for a URL/);
    // The next example brings its own question, not the previous one.
    await pick('logging.py', /LogCaptureHandler/);
    expect(await page.inputValue('#query')).toMatch(/^caplog\.get_records\(\) is frozen/);
    expect(await page.inputValue('#path')).toBe('logging.py');
    const sent = page.waitForRequest((r) => r.url().endsWith('/v1/prune'));
    await skim();
    expect((await sent).postDataJSON()).toMatchObject({ query: expect.stringMatching(/^caplog/), path: 'logging.py' });

    // Back to your own code: your code and your goal come back.
    await pick('', /def f42/);
    expect(await page.inputValue('#query')).toBe('my own question');
    expect(await page.inputValue('#path')).toBe('funcs.py');

    // Editing an example's code makes it your own: another example does not take it away.
    await pick('playground-lru_cache.go', /func \(c \*Cache\) Set/);
    await page.fill('#code', `${await page.inputValue('#code')}\n// my change\n`);
    expect(await page.inputValue('#example')).toBe('');
    await pick('playground-rate_limiter.ts', /TokenBucketLimiter/);
    expect(await page.inputValue('#query')).toMatch(/wait time/);
    await pick('', /my change/);
    expect(await page.inputValue('#query')).toMatch(/make room for a new value/);
  });

  for (const width of [420, 1400]) {
    it(`fits a ${width} px wide window before and after a run, in both views`, async () => {
      const narrow = await browser.newPage({ viewport: { width, height: 900 } });
      try {
        await narrow.goto(`${server.url}/`);
        await expect.poll(() => narrow.locator('#example option').count()).toBeGreaterThan(1);
        expect(await narrow.locator('#stats').isVisible()).toBe(false);
        expect(await misfits(narrow)).toEqual([]);
        // The header is not squeezed into a thin column: the tagline takes at most three lines.
        const tagline = (await narrow.locator('.tagline').boundingBox())!;
        const lineHeight = await narrow.locator('.tagline').evaluate((e) => parseFloat(getComputedStyle(e).lineHeight));
        expect(tagline.height).toBeLessThanOrEqual(3 * lineHeight + 1);

        await narrow.selectOption('#example', 'playground-http_session.py');
        await expect.poll(() => narrow.inputValue('#code')).toMatch(/class Session/);
        expect(await misfits(narrow)).toEqual([]);

        await narrow.check('input[name=mode][value="4"]');
        await narrow.click('#run');
        await expect.poll(() => narrow.locator('#stats').isVisible()).toBe(true);
        expect(await misfits(narrow)).toEqual([]);
        await narrow.locator('.marker').first().click();
        expect(await misfits(narrow)).toEqual([]);
        await narrow.screenshot({ path: SCREENSHOT.replace(/\.png$/, `-${width}.png`), fullPage: true });
        await narrow.check('input[name=view][value=text]');
        expect(await narrow.locator('#agentText').isVisible()).toBe(true);
        expect(await misfits(narrow)).toEqual([]);

        // Side by side on a wide screen, one above the other on a narrow one.
        const input = (await narrow.locator('section.input').boundingBox())!;
        const output = (await narrow.locator('section.output').boundingBox())!;
        if (width >= 1000) expect(output.x).toBeGreaterThanOrEqual(input.x + input.width);
        else expect(output.y).toBeGreaterThanOrEqual(input.y + input.height);
      } finally {
        await narrow.close();
      }
    });
  }
});
