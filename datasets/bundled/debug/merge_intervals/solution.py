def merge_intervals(intervals):
    """
    Merges all overlapping intervals and returns the merged intervals sorted by start.

    Intervals are closed: [1, 3] and [3, 5] overlap and merge into [1, 5].
    The input list is not modified.

    >>> merge_intervals([[1, 3], [2, 6], [8, 10], [15, 18]])
    [[1, 6], [8, 10], [15, 18]]
    """
    merged = []
    for start, end in sorted(intervals):
        if merged and start <= merged[-1][1]:
            merged[-1][1] = max(merged[-1][1], end)
        else:
            merged.append([start, end])
    return merged
