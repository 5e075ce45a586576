import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { FileBlobStore } from '../../src/store/file';

test('the folder store creates a blob folder once, and again when it was removed behind its back', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'file-dirs-'));
  const store = new FileBlobStore(dir);
  const mkdir = jest.spyOn(fs.promises, 'mkdir');
  try {
    const first = await store.put('one');
    const folder = path.join(dir, first.hash.slice('sha256:'.length, 'sha256:'.length + 2));
    const made = mkdir.mock.calls.filter(([p]) => p === folder).length;
    expect(made).toBe(1);
    // A second blob in the same folder: no mkdir round trip. Find one with the same first two hex digits.
    let other = '';
    for (let i = 0; !other; i++) {
      const r = await store.put(`two-${i}`);
      if (r.hash.slice(7, 9) === first.hash.slice(7, 9)) other = `two-${i}`;
    }
    expect(mkdir.mock.calls.filter(([p]) => p === folder).length).toBe(1);
    await store.setRecord('kind', 'key', 'value');
    // The store folder wiped: writes into folders it knew create them again and land.
    fs.rmSync(dir, { recursive: true, force: true });
    expect(await store.put('one')).toEqual(first);
    expect((await store.get(first)).toString('utf8')).toBe('one');
    expect(mkdir.mock.calls.filter(([p]) => p === folder).length).toBe(2);
    await store.setRecord('kind', 'key', 'value 2');
    expect(await store.getRecord('kind', 'key')).toBe('value 2');
  } finally {
    mkdir.mockRestore();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
