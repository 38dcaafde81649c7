def word_break(s, words):
    """
    Returns True if s can be split into a sequence of one or more words from
    the list words (a word may be used many times).

    >>> word_break("applepenapple", ["apple", "pen"])
    True
    >>> word_break("catsandog", ["cats", "dog", "sand", "and", "cat"])
    False
    """
    vocabulary = set(words)
    # splittable[i]: the first i characters can be split into words.
    splittable = [True] + [False] * len(s)
    for end in range(1, len(s) + 1):
        for start in range(end):
            if splittable[start] and s[start:end] in vocabulary:
                splittable[end] = True
                break
    return splittable[len(s)]
