import type { Task } from './types.ts';

/**
 * Tasks sorted by image, then id: tasks that share an image run one after another, so its layers (or its
 * unpacked root filesystem) stay warm in the cache, as R2E-Gym's and rLLM's runners order by docker_image.
 */
export function sortByImage<T extends Task>(tasks: readonly T[]): T[] {
  return [...tasks].sort((a, b) => compare(a.image, b.image) || compare(a.id, b.id));
}

/** Tasks grouped by image, groups in image order, tasks in id order. */
export function groupByImage<T extends Task>(tasks: readonly T[]): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const task of sortByImage(tasks)) {
    const group = groups.get(task.image);
    if (group) group.push(task);
    else groups.set(task.image, [task]);
  }
  return groups;
}

// Code-unit order, the same on every machine (localeCompare depends on the locale).
function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
