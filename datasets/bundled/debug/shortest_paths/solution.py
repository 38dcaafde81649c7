import heapq


def shortest_paths(n, edges, source):
    """
    Dijkstra's algorithm on a directed graph with nodes 0..n-1 and edges given
    as (u, v, weight) with non-negative weights. Returns the list of shortest
    distances from source; unreachable nodes get -1.

    >>> shortest_paths(4, [(0, 1, 4), (0, 2, 1), (2, 1, 2), (1, 3, 1)], 0)
    [0, 3, 1, 4]
    """
    graph = [[] for _ in range(n)]
    for u, v, weight in edges:
        graph[u].append((v, weight))
    distance = [None] * n
    heap = [(0, source)]
    while heap:
        d, node = heapq.heappop(heap)
        if distance[node] is not None:
            continue
        distance[node] = d
        for neighbour, weight in graph[node]:
            if distance[neighbour] is None:
                heapq.heappush(heap, (d + weight, neighbour))
    return [-1 if d is None else d for d in distance]
