import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { FileBlobStore } from '../../src/activities/blob-store';
import { MessageStore } from '../../src/activities/message-store';

test('append-only content-addressed chain: same content, same head; conversations rebuild from any head', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'msgs-'));
  const s = new MessageStore(new FileBlobStore(dir));
  const h1 = await s.append(null, { role: 'user', content: 'hi' });
  const h2 = await s.append(h1, { role: 'assistant', content: 'hello' });
  const loose = await s.putLoose({ role: 'tool', content: 'r', tool_call_id: 'c' });
  const h3 = await s.appendAll(h2, [{ ref: loose }, { message: { role: 'user', content: 'more' } }]);
  expect(h3).not.toBeNull();
  // A fresh store (cold cache) sees the same chain.
  const cold = new MessageStore(new FileBlobStore(dir));
  expect((await cold.conversation(h3)).map((m) => m.content)).toEqual(['hi', 'hello', 'r', 'more']);
  expect((await cold.conversation(h2)).map((m) => m.content)).toEqual(['hi', 'hello']);
  expect((await cold.first(h3!)).content).toBe('hi');
  expect((await cold.node(h3!)).n).toBe(3);
  // Same prefix + same message = same ref (retries are idempotent).
  expect(await s.append(h1, { role: 'assistant', content: 'hello' })).toEqual(h2);
  await expect(cold.node({ hash: 'sha256:' + '0'.repeat(64) })).rejects.toThrow(/not in the store/);
});

test('a tool result stored by this worker is linked without reading it back; salted ones and cold stores read it', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'msgs-loose-'));
  const blobs = new FileBlobStore(dir);
  const reads = jest.spyOn(blobs, 'get');
  const s = new MessageStore(blobs);
  const h1 = await s.append(null, { role: 'user', content: 'hi' });
  const loose = await s.putLoose({ role: 'tool', content: 'r', tool_call_id: 'c' });
  const h2 = await s.appendAll(h1, [{ ref: loose }]);
  expect(reads).not.toHaveBeenCalled();
  expect((await s.conversation(h2)).map((m) => m.content)).toEqual(['hi', 'r']);
  // The blob is on disk all the same: a fresh store reads it.
  const cold = new FileBlobStore(dir);
  const coldReads = jest.spyOn(cold, 'get');
  expect(await new MessageStore(cold).getLoose(loose)).toEqual({ role: 'tool', content: 'r', tool_call_id: 'c' });
  expect(coldReads).toHaveBeenCalledTimes(1);
  // An ephemeral run's (salted) message is read from the store each time: deleted at the run's end, it is gone.
  const salted = Object.assign(new FileBlobStore(dir), { salt: async () => 'run-salt' });
  const saltedReads = jest.spyOn(salted, 'get');
  const es = new MessageStore(salted);
  const ref = await es.putLoose({ role: 'tool', content: 'secret result', tool_call_id: 'c2' });
  expect((await es.getLoose(ref)).content).toBe('secret result');
  await salted.delete(ref);
  await expect(es.getLoose(ref)).rejects.toThrow(/not in the store/);
  expect(saltedReads).toHaveBeenCalledTimes(2);
});
