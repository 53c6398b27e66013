import { describe, expect, it } from 'vitest';
import { bridgeFromJson, bridgeToJson, expandQuery, fitBridge, mergeBridges } from '../../../src/core/features/bridge.js';

describe('fitBridge', () => {
  // "redraw" queries always land on lines with "refresh"; "render" appears in every file but never on gold lines
  const samples = Array.from({ length: 12 }, (_, k) => ({
    query: k % 2 ? ['redraw', 'progress'] : ['redraw', 'bar'],
    file: ['refresh', 'render', 'progress', `noise${k}`],
    gold: ['refresh', 'progress'],
  }));
  samples.push(...Array.from({ length: 12 }, () => ({ query: ['parse', 'config'], file: ['refresh', 'render', 'load'], gold: ['load'] })));

  it('learns a positive association for co-occurring gold terms and none for unrelated ones', () => {
    const b = fitBridge(samples, { minQuery: 2, minPair: 2 });
    const row = new Map(b.table.get('redraw'));
    expect(row.get('refresh')).toBeGreaterThan(0.4);
    expect(row.has('render')).toBe(false);
    const e = expandQuery(b, ['redraw']);
    expect(e.get('refresh')).toBe(row.get('refresh'));
    expect(e.has('load')).toBe(false);
  });

  it('round-trips through JSON', () => {
    const b = fitBridge(samples, { minQuery: 2, minPair: 2 });
    const j = JSON.parse(JSON.stringify(bridgeToJson(b)));
    const b2 = bridgeFromJson(j);
    expect([...b2.table.keys()].sort()).toEqual([...b.table.keys()].sort());
  });
});

describe('mergeBridges', () => {
  it("extends the base rows with the repository's pairs, keeping the stronger association", () => {
    const base = {
      table: new Map([
        [
          'redraw',
          [
            ['refresh', 1.2],
            ['paint', 0.5],
          ] as [string, number][],
        ],
      ]),
      prior: new Map([
        ['refresh', -2],
        ['paint', -3],
      ]),
    };
    const extra = {
      table: new Map([
        [
          'redraw',
          [
            ['paint', 0.9],
            ['repaint', 2.0],
          ] as [string, number][],
        ],
        ['frob', [['widget', 0.7]] as [string, number][]],
      ]),
      prior: new Map([['paint', -1]]),
    };
    const m = mergeBridges(base, extra);
    expect(m.table.get('redraw')).toEqual([
      ['repaint', 2.0],
      ['refresh', 1.2],
      ['paint', 0.9],
    ]);
    expect(m.table.get('frob')).toEqual([['widget', 0.7]]);
    expect(m.prior.get('paint')).toBe(-1);
    expect(m.prior.get('refresh')).toBe(-2);
    expect(base.table.get('redraw')).toHaveLength(2); // inputs untouched
  });
});
