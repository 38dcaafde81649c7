def decode_rle(encoded):
    """
    Decodes a run-length encoded string where each run is a count followed by
    a character, e.g. "3a2b" -> "aaabb". Counts may have several digits
    ("12x" is twelve x). A character without a count appears once.

    >>> decode_rle("3a2bc")
    'aaabbc'
    """
    decoded = []
    count = 0
    for char in encoded:
        if char.isdigit():
            count = count * 10 + int(char)
        else:
            decoded.append(char * (count or 1))
            count = 0
    return "".join(decoded)
