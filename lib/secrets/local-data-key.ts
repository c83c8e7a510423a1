import { randomBytes } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { type DataKeyLoader, NoDataKeyYet } from './secret-box';

const KEY_BYTES = 32;

/**
 * The local stage's data key: 32 random bytes in a file readable by its owner only (`.data/` by
 * default), made by the first seal. Concurrent first uses agree: the exclusive create has one winner
 * and the others read what it wrote.
 */
export function localDataKey(path: string): DataKeyLoader {
  return async (create) => {
    try {
      return checked(await readFile(path), path);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
    }
    if (!create) throw new NoDataKeyYet(`no signing data key in ${path} yet`);
    await mkdir(dirname(path), { recursive: true });
    const key = randomBytes(KEY_BYTES);
    try {
      await writeFile(path, key, { flag: 'wx', mode: 0o600 });
      return key;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      return checked(await readFile(path), path);
    }
  };
}

function checked(key: Buffer, path: string): Buffer {
  // A reader may see the winner's file before its bytes land; it is never shorter once written.
  if (key.length !== KEY_BYTES) throw new Error(`the signing data key in ${path} is not ${KEY_BYTES} bytes`);
  return key;
}
