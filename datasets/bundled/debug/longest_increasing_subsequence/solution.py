from bisect import bisect_left


def length_of_lis(nums):
    """
    Returns the length of the longest strictly increasing subsequence of nums,
    in O(n log n): tails[k] is the smallest tail of an increasing subsequence
    of length k + 1 seen so far.

    >>> length_of_lis([10, 9, 2, 5, 3, 7, 101, 18])
    4
    """
    tails = []
    for num in nums:
        position = bisect_left(tails, num)
        if position == len(tails):
            tails.append(num)
        else:
            tails[position] = num
    return len(tails)
