import { afterEach, describe, expect, it } from 'vitest';
import { Node } from 'web-tree-sitter';
import { buildSyntaxIndex, ensureGrammar } from '../../../src/core/syntax/index.js';

/** Counts the nodes handed over by `children` and `namedChildren` (every one crosses the wasm boundary). */
function countMaterialized(): { count: () => number; restore: () => void } {
  let n = 0;
  const saved: [string, PropertyDescriptor][] = [];
  for (const name of ['children', 'namedChildren']) {
    const d = Object.getOwnPropertyDescriptor(Node.prototype, name)!;
    saved.push([name, d]);
    Object.defineProperty(Node.prototype, name, {
      configurable: true,
      get(this: Node) {
        const got = d.get!.call(this) as unknown[];
        n += got.length;
        return got;
      },
    });
  }
  return { count: () => n, restore: () => saved.forEach(([name, d]) => Object.defineProperty(Node.prototype, name, d)) };
}

describe('the syntax walk', () => {
  let spy: ReturnType<typeof countMaterialized> | undefined;
  afterEach(() => spy?.restore());

  it("finds a scope's header and first statement without materialising its children or its body's members", async () => {
    await ensureGrammar('python');
    const methods = Array.from({ length: 200 }, (_, i) => [`    # method ${i}`, `    @staticmethod`, `    def m${i}(a, b):`, `        return a + ${i}`]).flat();
    const lines = ['class Big:', '    """Many methods."""', ...methods, ''];
    spy = countMaterialized();
    const idx = buildSyntaxIndex(lines, 'python');
    // 201 scopes, each once found the slow way: its children, then its body's members (a class body holds 600 of them)
    expect(idx.scopes).toHaveLength(201);
    expect(idx.scopes[1]).toMatchObject({ kind: 'method', name: 'm0', start: 4, headerEnd: 4, bodyStart: 5, decorators: [3] });
    expect(spy.count()).toBeLessThan(idx.scopes.length);
  });
});
