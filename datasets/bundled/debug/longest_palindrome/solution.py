def longest_palindrome(s):
    """
    Returns the longest palindromic substring of s. When several have the
    maximum length, the one that starts first is returned.

    >>> longest_palindrome("babad")
    'bab'
    >>> longest_palindrome("cbbd")
    'bb'
    """
    best_start, best_length = 0, 0
    for center in range(len(s)):
        for left, right in ((center, center), (center, center + 1)):
            while left >= 0 and right < len(s) and s[left] == s[right]:
                left -= 1
                right += 1
            length = right - left - 1
            if length > best_length:
                best_start, best_length = left + 1, length
    return s[best_start:best_start + best_length]
