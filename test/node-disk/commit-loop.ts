/**
 * A child process for the journal's crash test: commits `key-<n>` in a loop and prints each key
 * once its commit has returned, until it is killed.
 */
import { Journal } from '../../agent/serve/disk/journal';

const dir = process.argv[2];
if (!dir) throw new Error('usage: commit-loop.ts <dir>');
const journal = Journal.open(dir);
for (let n = 0; ; n++) {
  const key = `key-${String(n).padStart(8, '0')}`;
  // Two writes a commit, so that a commit is seen whole or not at all.
  journal.commit([
    { key, value: { n, padding: 'x'.repeat(200) } },
    { key: `twin-${key}`, value: n },
  ]);
  process.stdout.write(`${key}\n`);
}
