def spiral_order(matrix):
    """
    Returns the elements of a rectangular matrix in clockwise spiral order,
    starting at the top-left corner.

    >>> spiral_order([[1, 2, 3], [4, 5, 6], [7, 8, 9]])
    [1, 2, 3, 6, 9, 8, 7, 4, 5]
    """
    result = []
    if not matrix:
        return result
    top, bottom, left, right = 0, len(matrix) - 1, 0, len(matrix[0]) - 1
    while top <= bottom and left <= right:
        result.extend(matrix[top][c] for c in range(left, right + 1))
        result.extend(matrix[r][right] for r in range(top + 1, bottom + 1))
        if top < bottom:
            result.extend(matrix[bottom][c] for c in range(right - 1, left - 1, -1))
        if left < right:
            result.extend(matrix[r][left] for r in range(bottom - 1, top, -1))
        top, bottom, left, right = top + 1, bottom - 1, left + 1, right - 1
    return result
