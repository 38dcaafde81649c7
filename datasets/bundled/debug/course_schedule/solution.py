from collections import defaultdict


def can_finish(num_courses, prerequisites):
    """
    Courses are numbered 0..num_courses-1; each pair [course, required] in
    prerequisites means required must be taken before course. Returns True if
    all courses can be finished, i.e. the prerequisites contain no cycle.

    >>> can_finish(2, [[1, 0]])
    True
    >>> can_finish(2, [[1, 0], [0, 1]])
    False
    """
    unlocks = defaultdict(list)
    for course, required in prerequisites:
        unlocks[required].append(course)
    NEW, ON_PATH, DONE = 0, 1, 2
    state = [NEW] * num_courses

    def has_cycle(course):
        if state[course] == ON_PATH:
            return True
        if state[course] == DONE:
            return False
        state[course] = ON_PATH
        if any(has_cycle(next_course) for next_course in unlocks[course]):
            return True
        state[course] = DONE
        return False

    return not any(has_cycle(course) for course in range(num_courses))
