import { spawn } from 'node:child_process';
import { appendFileSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Journal } from '../../agent/serve/disk/journal';

const dirs: string[] = [];
function freshDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'journal-'));
  dirs.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('Journal', () => {
  it('reads back what it committed, and deletes', () => {
    const journal = Journal.open(freshDir());
    journal.commit([
      { key: 'a', value: { n: 1 } },
      { key: 'b', value: 'two' },
    ]);
    journal.commit([{ key: 'a' }]);
    expect(journal.get('a')).toBeUndefined();
    expect(journal.get<string>('b')).toBe('two');
    journal.close();
  });

  it('scans a prefix in plain string order', () => {
    const journal = Journal.open(freshDir());
    journal.commit(['p#b', 'p#B', 'q#a', 'p#a', 'p#a#1'].map((key) => ({ key, value: key })));
    expect(journal.scan<string>('p#').map(([key]) => key)).toEqual(['p#B', 'p#a', 'p#a#1', 'p#b']);
    journal.close();
  });

  it('keeps its values from being changed in place, and keeps not the caller’s object', () => {
    const journal = Journal.open(freshDir());
    const value = { nested: { n: 1 } };
    journal.commit([{ key: 'k', value }]);
    value.nested.n = 2;
    const read = journal.get<{ nested: { n: number } }>('k');
    expect(read?.nested.n).toBe(1);
    expect(() => {
      if (read) read.nested.n = 3;
    }).toThrow(TypeError);
    journal.close();
  });

  it('a fresh open of the same directory sees every commit', () => {
    const dir = freshDir();
    const journal = Journal.open(dir);
    journal.commit([{ key: 'a', value: 1 }]);
    journal.commit([{ key: 'b', value: [1, 2] }, { key: 'a' }]);
    journal.close();
    const reopened = Journal.open(dir);
    expect(reopened.get('a')).toBeUndefined();
    expect(reopened.get('b')).toEqual([1, 2]);
    reopened.close();
  });

  it('ignores a torn last line, and commits after it are read back', () => {
    const dir = freshDir();
    const journal = Journal.open(dir);
    journal.commit([{ key: 'a', value: 1 }]);
    journal.close();
    appendFileSync(join(dir, 'journal.log'), '[["b",2],["c"');
    const reopened = Journal.open(dir);
    expect(reopened.get('a')).toBe(1);
    expect(reopened.get('b')).toBeUndefined();
    reopened.commit([{ key: 'd', value: 4 }]);
    reopened.close();
    const again = Journal.open(dir);
    expect([again.get('a'), again.get('b'), again.get('d')]).toEqual([1, undefined, 4]);
    again.close();
  });

  it('refuses a log with a damaged complete line rather than lose what follows it', () => {
    const dir = freshDir();
    Journal.open(dir).close();
    appendFileSync(join(dir, 'journal.log'), 'garbage\n[["a",1]]\n');
    expect(() => Journal.open(dir)).toThrow(/line 1/);
  });

  it('compacts at open and as the log grows, keeping everything', () => {
    const dir = freshDir();
    const journal = Journal.open(dir);
    for (let n = 0; n < 10_500; n++) journal.commit([{ key: `k${n % 3000}`, value: n }]);
    // 10,000 lines made one compaction; 500 are in the log since.
    expect(readFileSync(join(dir, 'journal.log'), 'utf8').split('\n')).toHaveLength(501);
    journal.close();
    const reopened = Journal.open(dir);
    expect(statSync(join(dir, 'journal.log')).size).toBe(0);
    expect(reopened.scan('k')).toHaveLength(3000);
    expect(reopened.get('k0')).toBe(9000);
    expect(reopened.get('k2999')).toBe(8999);
    reopened.close();
  });

  it('refuses commits once closed', () => {
    const journal = Journal.open(freshDir());
    journal.close();
    expect(() => journal.commit([{ key: 'a', value: 1 }])).toThrow(/closed/);
    expect(() => journal.assertWritable()).toThrow(/closed/);
  });

  it('loses nothing it committed when its process is killed mid-writes', async () => {
    const dir = freshDir();
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', join(import.meta.dirname, 'commit-loop.ts'), dir],
      {
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    const printed: string[] = [];
    let pending = '';
    await new Promise<void>((resolve, reject) => {
      child.on('error', reject);
      child.on('exit', () => resolve());
      child.stdout.on('data', (chunk: Buffer) => {
        const lines = (pending + chunk.toString('utf8')).split('\n');
        pending = lines.pop() ?? '';
        printed.push(...lines);
        // Past at least one compaction (10,000 commits), then killed with no warning.
        if (printed.length >= 10_300) child.kill('SIGKILL');
      });
    });
    expect(child.signalCode).toBe('SIGKILL');
    const journal = Journal.open(dir);
    const missing = printed.filter((key) => journal.get(key) === undefined);
    expect(missing).toEqual([]);
    // Every commit is there whole: each key with its twin.
    const keys = journal.scan('key-');
    expect(keys.length).toBeGreaterThanOrEqual(printed.length);
    expect(keys.every(([key]) => journal.get(`twin-${key}`) !== undefined)).toBe(true);
    journal.close();
  }, 60_000);
});
