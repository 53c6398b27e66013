/**
 * The node listener: graceful close lets in-flight requests finish; `skim serve` stops cleanly on
 * SIGTERM. Loopback only, ephemeral ports.
 */

import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { createApp } from '../../src/server/app.js';
import { listen } from '../../src/server/listen.js';
import { BIN, ROOT } from '../helpers/cli.js';
import { fakeRunner } from './fakeRunner.js';

describe('listen', () => {
  it('serves on an ephemeral loopback port and finishes in-flight requests on close', async () => {
    const runner = fakeRunner({ delayMs: 300 });
    const app = createApp({ runner, log: () => {} });
    const server = await listen(app, '127.0.0.1', 0);
    expect(server.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect((await fetch(`${server.url}/health`)).status).toBe(200);
    const inFlight = fetch(`${server.url}/v1/prune`, { method: 'POST', body: JSON.stringify({ code: 'a proxy\nb\n', query: 'proxy' }) });
    // close once the request is in the runner's hands (not after a guess at how long that takes)
    while (runner.calls.length === 0) await new Promise((r) => setTimeout(r, 5)); // the test's time limit bounds this
    const closed = server.close(5000);
    const res = await inFlight;
    expect(res.status).toBe(200);
    expect((await res.json()).text).toBe('a proxy');
    await closed;
    await expect(fetch(`${server.url}/health`)).rejects.toThrow();
  });
});

describe('skim serve', () => {
  it('starts, answers, and exits 0 on SIGTERM (the built binary)', async () => {
    const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--workers', '1'], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    let stdout = '';
    child.stdout.on('data', (d) => (stdout += d));
    const url = await new Promise<string>((resolve, reject) => {
      child.stderr.on('data', (d) => {
        stderr += d;
        const m = /listening on (http:\/\/[\d.]+:\d+)/.exec(stderr);
        if (m) resolve(m[1]);
      });
      child.once('exit', (code) => reject(new Error(`exited early with ${code}: ${stderr}`)));
    });
    const info = await (await fetch(`${url}/v1/info`)).json();
    expect(info.runner).toBe('workers x1');
    expect(info.languages).toContain('python');
    const pruned = await fetch(`${url}/prune`, { method: 'POST', body: JSON.stringify({ query: 'q', code: 'x = 1\n' }) });
    expect(pruned.status).toBe(200);
    const exit = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    expect(await exit).toBe(0);
    expect(stderr).toMatch(/SIGTERM received/);
    expect(stderr).toMatch(/POST \/prune 200/);
    expect(stdout).toBe('');
  });

  it('exits when the process that started it is killed without passing the signal on (npx)', async () => {
    // a parent like npx: starts `skim serve`, says its pid, and is then SIGKILLed
    const parentScript = `
      const { spawn } = require('node:child_process');
      const c = spawn(process.execPath, ['--import', 'tsx', 'src/cli/main.ts', 'serve', '--port', '0', '--workers', '0'], { stdio: ['ignore', 'ignore', 'inherit'] });
      process.stdout.write(c.pid + '\\n');
      setInterval(() => {}, 1000);`;
    const parent = spawn(process.execPath, ['-e', parentScript], {
      cwd: ROOT,
      env: { ...process.env, SKIM_PARENT_CHECK_MS: '100' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    let stdout = '';
    parent.stdout.on('data', (d) => (stdout += d));
    await new Promise<void>((resolve, reject) => {
      parent.stderr.on('data', (d) => {
        stderr += d;
        if (/listening on/.test(stderr)) resolve();
      });
      parent.once('exit', (code) => reject(new Error(`the parent exited early with ${code}: ${stderr}`)));
    });
    const servePid = Number(stdout.trim());
    const alive = () => {
      try {
        process.kill(servePid, 0);
        return true;
      } catch {
        return false;
      }
    };
    expect(alive()).toBe(true);
    parent.kill('SIGKILL');
    while (alive()) await new Promise((r) => setTimeout(r, 50)); // the test's time limit bounds this
    expect(stderr).toMatch(/the parent process exited, finishing in-flight requests/);
  });
});
