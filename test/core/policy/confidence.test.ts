/**
 * Saying when unsure: a default-mode read that omitted lines warns when its best line matches the
 * goal hint only weakly, or when it is longer than the reads the policy was fitted on.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { doubtAbout } from '../../../src/core/policy/confidence.js';
import { prune } from '../../../src/core/prune.js';

const logging = readFileSync(new URL('../../../examples/logging.py', import.meta.url), 'utf8');
const fitted = { tauScale: 1, label: 'gate p=0.10: tau x1' };
const beyondFit = { tauScale: 1, label: 'over 10000 characters: tau x1', beyondFit: true as const };

describe('doubtAbout', () => {
  it('says nothing outside the read policy, for a read left whole, or for a strong match', () => {
    expect(doubtAbout({ best: 0.001, calibrated: 0.01, chars: 500, decision: null })).toBeNull();
    expect(doubtAbout({ best: 0.001, calibrated: 0.01, chars: 500, decision: { tauScale: null, label: 'whole' } })).toBeNull();
    expect(doubtAbout({ best: 0.04, calibrated: 0.01, chars: 500, decision: fitted })).toBeNull();
    // a scorer whose τ is large: the bound stays below 1 (0.5 -> 0.61)
    expect(doubtAbout({ best: 0.9, calibrated: 0.5, chars: 500, decision: fitted })).toBeNull();
    expect(doubtAbout({ best: 0.55, calibrated: 0.5, chars: 500, decision: fitted })?.code).toBe('weak-match');
  });

  it('warns of a weak match (for the shipped τ, below 8x it), and of a long read', () => {
    const weak = doubtAbout({ best: 0.003, calibrated: 0.00072, chars: 500, decision: fitted });
    expect(weak?.code).toBe('weak-match');
    expect(weak?.message).toMatch(/^weak match: the best line scores 4\.2x the threshold against the goal hint; .*read the range you need$/);
    expect(doubtAbout({ best: 0.0062, calibrated: 0.00072, chars: 500, decision: fitted })).toBeNull();
    const long = doubtAbout({ best: 0.5, calibrated: 0.00072, chars: 30010, decision: beyondFit });
    expect(long?.code).toBe('long-read');
    expect(long?.message).toMatch(/^long read \(30010 characters, over the 10000 /);
    // both: one warning, the weak match, naming the length
    expect(doubtAbout({ best: 0.002, calibrated: 0.00072, chars: 30010, decision: beyondFit })?.message).toContain('(a long read, 30010 characters)');
  });
});

describe('prune() says when unsure (the shipped model, a real 826-line file)', () => {
  const codes = async (query: string, extra: object = {}) =>
    (await prune({ code: logging, path: 'src/_pytest/logging.py', query, ...extra })).diagnostics.map((d) => d.code);

  it('a long read with a strong match: long-read', async () => {
    expect(await codes('caplog.get_records() is frozen after caplog.clear() is called: where are the records replaced instead of cleared?')).toEqual([
      'long-read',
    ]);
  });

  it('a hint the file barely matches: weak-match', async () => {
    expect(await codes('Which function parses the YAML file?')).toEqual(['weak-match']);
  });

  it('a hint nothing matches: only nothing-relevant (the whole file omitted says it already)', async () => {
    expect(await codes('How does the HTTP client follow redirects?')).toEqual(['nothing-relevant']);
  });

  it('a budget or an explicit threshold is the caller asking: no doubt', async () => {
    expect(await codes('Which function parses the YAML file?', { ratio: 4 })).toEqual([]);
    expect(await codes('Which function parses the YAML file?', { threshold: 0.0005 })).not.toContain('weak-match');
    expect(await codes('Where is the date format read?', { threshold: 0.0005 })).not.toContain('long-read');
  });
});
