/**
 * Fine-tunes a model on the bug-report cases (the output of scripts/bugreports/build.ts), the way
 * `skim adapt` fine-tunes on a repository's commits: the init model's bridge kept, both stages in
 * turn, epochs chosen on a tune slice of ~12% of the cases (by fix commit), each stage kept from the
 * init unless it beats it there, the threshold re-set to the init's operating point. Only the cases
 * of repositories outside `skim train`'s held-back set are used (marshmallow and poetry stay out).
 * A report goes in as a commit sample would (its text as the query, fix ∪ teacher lines as labels).
 *
 *   npx tsx scripts/bugreports/fine-tune.ts --cases .scratch/bugreports.jsonl.gz --init models/default --out .scratch/model-ft
 */
import { parseArgs } from 'node:util';
import { fineTune } from '../../src/data/adapt.js';
import { readCases } from '../../src/train/datasets.js';

async function main(): Promise<void> {
  const { values: args } = parseArgs({
    options: {
      cases: { type: 'string' },
      init: { type: 'string', default: 'models/default' },
      out: { type: 'string' },
      epochs: { type: 'string', default: '4' },
      lr: { type: 'string' },
    },
  });
  if (!args.cases || !args.out) throw new Error('usage: --cases FILE --out DIR [--init DIR]');
  const files = (await readCases(args.cases, 'teacher')).filter((f) => f.split === 'train');
  // fineTune selects on the commit group; the case id "<repo>@<commit>" keeps cases of one fix together
  const train = files.map((f) => ({ ...f, source: 'commit' as const, queryKind: 'commit' as const }));
  const res = await fineTune({
    train,
    init: args.init,
    out: args.out,
    epochs: Number(args.epochs),
    ...(args.lr ? { lr: Number(args.lr) } : {}),
    log: (m) => console.error(m),
  });
  console.log(JSON.stringify(res));
}

if (process.argv[1]?.endsWith('fine-tune.ts')) await main();
