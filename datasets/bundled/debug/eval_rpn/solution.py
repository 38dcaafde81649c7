def eval_rpn(tokens):
    """
    Evaluates an arithmetic expression in Reverse Polish Notation. Operators
    are +, -, * and /; division between integers truncates toward zero, as in
    C or Java (so -7 / 2 is -3). Operands are integers.

    >>> eval_rpn(["2", "1", "+", "3", "*"])
    9
    """
    stack = []
    for token in tokens:
        if token in ("+", "-", "*", "/"):
            right = stack.pop()
            left = stack.pop()
            if token == "+":
                stack.append(left + right)
            elif token == "-":
                stack.append(left - right)
            elif token == "*":
                stack.append(left * right)
            else:
                stack.append(int(left / right))
        else:
            stack.append(int(token))
    return stack[0]
