import assert from 'node:assert/strict';
import { test } from 'node:test';
import { groupByImage, sortByImage } from './order-by-image.ts';
import type { Task } from './types.ts';

const task = (id: string, image: string) => ({ id, image }) as Task;

test('tasks sharing an image come together, ids in order within an image', () => {
  const tasks = [task('b-2', 'img/b'), task('a-1', 'img/a'), task('b-1', 'img/b'), task('a-0', 'img/a')];
  assert.deepEqual(
    sortByImage(tasks).map((t) => t.id),
    ['a-0', 'a-1', 'b-1', 'b-2'],
  );
  assert.deepEqual(tasks[0]!.id, 'b-2', 'the input is left as it was');
  const groups = groupByImage(tasks);
  assert.deepEqual([...groups.keys()], ['img/a', 'img/b']);
  assert.deepEqual(
    groups.get('img/b')!.map((t) => t.id),
    ['b-1', 'b-2'],
  );
});

test('order does not depend on the locale: code-unit order', () => {
  const tasks = [task('1', 'img/é'), task('2', 'img/Z'), task('3', 'img/a')];
  assert.deepEqual(
    sortByImage(tasks).map((t) => t.image),
    ['img/Z', 'img/a', 'img/é'],
  );
});
