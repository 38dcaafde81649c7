VALUES = {"I": 1, "V": 5, "X": 10, "L": 50, "C": 100, "D": 500, "M": 1000}


def roman_to_int(s):
    """
    Converts a Roman numeral (I, V, X, L, C, D, M, with the subtractive forms
    IV, IX, XL, XC, CD and CM) to an integer.

    >>> roman_to_int("MCMXCIV")
    1994
    """
    total = 0
    for i, symbol in enumerate(s):
        value = VALUES[symbol]
        if i + 1 < len(s) and value < VALUES[s[i + 1]]:
            total -= value
        else:
            total += value
    return total
