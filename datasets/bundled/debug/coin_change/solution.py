def coin_change(coins, amount):
    """
    Returns the fewest number of coins needed to make up amount, using an
    unlimited supply of each coin value, or -1 if the amount cannot be made.

    >>> coin_change([1, 2, 5], 11)
    3
    >>> coin_change([2], 3)
    -1
    """
    impossible = amount + 1
    fewest = [0] + [impossible] * amount
    for total in range(1, amount + 1):
        for coin in coins:
            if coin <= total:
                fewest[total] = min(fewest[total], fewest[total - coin] + 1)
    return fewest[amount] if fewest[amount] != impossible else -1
