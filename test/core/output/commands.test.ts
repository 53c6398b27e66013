import { describe, expect, it } from 'vitest';
import { expandsMarker } from '../../../src/core/output/commands.js';

describe('expandsMarker', () => {
  it('knows a skim show however the shell names it', () => {
    for (const command of [
      'skim show h',
      'skim show h:1-20',
      'cd /repo && skim show h',
      'cd a && cd b && skim show h',
      'cd "/my dir" && skim show h:3-4',
      'env SKIM_SESSION=x skim show h',
      'SKIM_SESSION="a b" skim show h',
      'npx --yes skim show h',
      'npx skim-pruner show h',
      './node_modules/.bin/skim show h',
      '/usr/local/bin/skim show h --session s',
    ])
      expect(expandsMarker(command), command).toBe(true);
  });

  it('not a command that prints more than the marker (or something else)', () => {
    for (const command of [
      'skim show h && pytest tests/ -x',
      'skim show h; cat big.log',
      'skim show h || echo x',
      'skim show h | grep x',
      'skim show $(cat f)',
      'skim show-config',
      'echo skim show h',
      'pytest',
    ])
      expect(expandsMarker(command), command).toBe(false);
  });
});
