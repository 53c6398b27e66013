/**
 * Writes assets/o200k_base.bin, the o200k_base vocabulary in the binary form src/core/tokens/o200k.ts
 * reads in place, from gpt-tokenizer's rank list. Run after upgrading gpt-tokenizer:
 *   npx tsx scripts/build-o200k-table.ts
 * (test/core/tokens/o200k.test.ts fails while the shipped file differs from what this builds.)
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import ranks from 'gpt-tokenizer/bpeRanks/o200k_base';
import { buildO200kTable } from '../src/core/tokens/o200kTable.js';

const out = path.resolve(import.meta.dirname ?? '.', '../assets/o200k_base.bin');
const bytes = buildO200kTable(ranks as (string | number[])[]);
writeFileSync(out, bytes);
console.log(`${out}: ${ranks.length} ranks, ${bytes.length} bytes`);
