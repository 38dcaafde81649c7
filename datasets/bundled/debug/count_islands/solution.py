def count_islands(grid):
    """
    Counts islands in a grid of "1" (land) and "0" (water) strings. An island
    is a group of land cells connected horizontally or vertically; the grid
    does not wrap around its edges. The grid is not modified.

    >>> count_islands([["1", "1", "0"], ["0", "1", "0"], ["0", "0", "1"]])
    2
    """
    rows = len(grid)
    cols = len(grid[0]) if rows else 0
    seen = set()

    def explore(r, c):
        stack = [(r, c)]
        while stack:
            r, c = stack.pop()
            if not (0 <= r < rows and 0 <= c < cols) or (r, c) in seen or grid[r][c] != "1":
                continue
            seen.add((r, c))
            stack.extend([(r + 1, c), (r - 1, c), (r, c + 1), (r, c - 1)])

    islands = 0
    for r in range(rows):
        for c in range(cols):
            if grid[r][c] == "1" and (r, c) not in seen:
                islands += 1
                explore(r, c)
    return islands
