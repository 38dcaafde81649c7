import assert from 'node:assert/strict';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import {
  checkpointName,
  POINTER_FILE,
  readCheckpointPointer,
  writeCheckpointPointer,
} from './checkpoint-pointer.ts';

test('checkpoint names are the path’s last part in the characters the API accepts', () => {
  assert.equal(checkpointName('/runs/exp/checkpoints/global_step_10'), 'global_step_10');
  assert.equal(checkpointName('step 3.v2'), 'step_3_v2');
  assert.throws(() => checkpointName('/'), /gives no checkpoint name/);
});

test('a pointer written into a directory is read back; a tinker:// path is its own pointer', async (t) => {
  const dir = await mkdtemp(join(tmpdir(), 'sandgym-pointer-'));
  t.after(() => rm(dir, { recursive: true, force: true }));
  const ckpt = join(dir, 'step-1');
  const pointer = {
    format: 'sandgym-tinker-checkpoint' as const,
    tinker_path: 'tinker://model_1/weights/step-1',
    base_url: 'http://127.0.0.1:8000',
    base_model: 'reference-tiny',
    lora_rank: 32,
    saved_at: '2025-01-01T00:00:00.000Z',
  };
  await writeCheckpointPointer(ckpt, pointer);
  await writeCheckpointPointer(ckpt, pointer);
  assert.deepEqual(await readdir(ckpt), [POINTER_FILE]);
  assert.deepEqual(await readCheckpointPointer(ckpt), {
    tinker_path: pointer.tinker_path,
    base_model: 'reference-tiny',
  });
  assert.deepEqual(await readCheckpointPointer('tinker://m/weights/x'), {
    tinker_path: 'tinker://m/weights/x',
  });
  await assert.rejects(
    readCheckpointPointer(join(dir, 'nothing')),
    /no tinker-checkpoint\.json .*pass its tinker:\/\/ path/,
  );
  await writeFile(join(ckpt, POINTER_FILE), '{"format":"other"}');
  await assert.rejects(readCheckpointPointer(ckpt), /not a tinker checkpoint pointer/);
});
