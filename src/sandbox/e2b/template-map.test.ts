import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import { isConfigError } from '../../errors.ts';
import { parseTemplateMap, TemplateMap } from './template-map.ts';

describe('template map', () => {
  it('maps images to templates, in plain form or as AGS tool_mapping.json, by canonical image name', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'sg-tmap-'));
    try {
      const path = join(dir, 'tool_mapping.json');
      await writeFile(
        path,
        JSON.stringify({
          'namanjain12/aiohttp_final:006fbe03': {
            tool_name: 'aiohttp_final-006fbe03',
            tool_id: 'sdt-123',
            tcr_image: 'ccr.ccs.tencentyun.com/namanjain12/aiohttp_final:006fbe03',
          },
          'sandgym/base': 'base-template',
        }),
      );
      const map = await TemplateMap.load(path, { 'extra/image:1': 'extra-template' });
      assert.equal(map.templateFor('namanjain12/aiohttp_final:006fbe03'), 'aiohttp_final-006fbe03');
      assert.equal(map.templateFor('sandgym/base:latest'), 'base-template');
      assert.equal(map.templateFor('extra/image:1'), 'extra-template');
      assert.equal(map.templateFor('not/mapped:2'), 'not/mapped:2', 'an unmapped image is its own template');
      assert.equal(map.has('not/mapped:2'), false);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('says what is wrong with a bad map, naming the file', async () => {
    for (const [text, pattern] of [
      ['{', /is not JSON/],
      ['[]', /JSON object/],
      ['{"img": 5}', /entry of "img"/],
      ['{"img": {"tool_id": "x"}}', /tool_name/],
      ['{"Bad Image": "t"}', /invalid image name/],
    ] as const) {
      assert.throws(
        () => parseTemplateMap(text, 'map.json'),
        (e: unknown) => isConfigError(e) && /map\.json/.test(e.message) && pattern.test(e.message),
        text,
      );
    }
    await assert.rejects(TemplateMap.load('/no/such/map.json'), (e: unknown) => isConfigError(e));
  });
});
