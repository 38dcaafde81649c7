from collections import Counter


def top_k_frequent(words, k):
    """
    Returns the k most frequent words, most frequent first; words with the
    same frequency are ordered alphabetically.

    >>> top_k_frequent(["i", "love", "code", "i", "love", "coding"], 2)
    ['i', 'love']
    """
    counts = Counter(words)
    return sorted(counts, key=lambda word: (-counts[word], word))[:k]
