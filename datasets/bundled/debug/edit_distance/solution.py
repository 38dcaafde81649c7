def edit_distance(a, b):
    """
    Returns the Levenshtein distance between strings a and b: the fewest
    single-character insertions, deletions and substitutions that turn a
    into b.

    >>> edit_distance("horse", "ros")
    3
    """
    # distance[i][j]: distance between a[:i] and b[:j].
    distance = [[0] * (len(b) + 1) for _ in range(len(a) + 1)]
    for i in range(len(a) + 1):
        distance[i][0] = i
    for j in range(len(b) + 1):
        distance[0][j] = j
    for i in range(1, len(a) + 1):
        for j in range(1, len(b) + 1):
            substitution = 0 if a[i - 1] == b[j - 1] else 1
            distance[i][j] = min(
                distance[i - 1][j] + 1,
                distance[i][j - 1] + 1,
                distance[i - 1][j - 1] + substitution,
            )
    return distance[len(a)][len(b)]
