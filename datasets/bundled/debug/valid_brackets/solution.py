PAIRS = {")": "(", "]": "[", "}": "{"}


def is_valid(s):
    """
    Returns True if every bracket in s is closed by the same type of bracket
    in the correct order. Characters other than ()[]{} are ignored.

    >>> is_valid("([]{})")
    True
    >>> is_valid("(]")
    False
    """
    stack = []
    for char in s:
        if char in "([{":
            stack.append(char)
        elif char in PAIRS:
            if not stack or stack.pop() != PAIRS[char]:
                return False
    return not stack
