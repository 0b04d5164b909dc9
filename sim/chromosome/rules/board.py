"""The board of rooms (spec §9): a layout's rooms, their adjacency (L1), distances (L4) and the
validity checks of L3. Plain Python and numpy at load time; the kernels read the arrays.

Rooms are indexed 0..n-1 in the layout's order; a room's id in files and logs is its tile number.
"""

from collections import deque
from typing import NamedTuple

import numpy as np

# L1: axial-coordinate steps to the six neighbours of a hex.
HEX_STEPS = ((1, 0), (-1, 0), (0, 1), (0, -1), (1, -1), (-1, 1))
MAX_NEIGHBOURS = 6
UNREACHABLE = 127  # the distance between rooms in two parts (only after an event removed rooms)


class LayoutError(ValueError):
    """A layout that breaks L1 or L3; the message names the key (the loader adds the file)."""


class Board(NamedTuple):
    """A layout's rooms as the engine reads them."""

    tile: np.ndarray  # int16 [n]: the tile number of each room
    sterility: np.ndarray  # int8 [n]: 1-3 (M3)
    start: np.ndarray  # bool [n]: a start room (S7)
    red: np.ndarray  # bool [n]: at risk from event cards (C1)
    neighbours: np.ndarray  # int8 [n, 6]: adjacent rooms, -1 padded
    degree: np.ndarray  # int8 [n]
    distance: np.ndarray  # int8 [n, n]: shortest path length over adjacent rooms (L4)

    @property
    def rooms(self) -> int:
        return len(self.tile)

    def room_of(self, tile: int) -> int:
        """The room index of a tile number (a LayoutError if the layout has no such room)."""
        where = np.flatnonzero(self.tile == tile)
        if len(where) == 0:
            raise LayoutError(f"tile {tile} is not a room of this layout")
        return int(where[0])

    def edges(self) -> list[tuple[int, int]]:
        """The adjacent pairs of tile numbers, each once, (low, high), sorted."""
        pairs = set()
        for a in range(self.rooms):
            for b in self.neighbours[a, : self.degree[a]]:
                pairs.add(tuple(sorted((int(self.tile[a]), int(self.tile[b])))))
        return sorted(pairs)


def distances(neighbours: np.ndarray, degree: np.ndarray, removed: np.ndarray | None = None) -> np.ndarray:
    """L4: breadth-first distances between every pair of rooms; ``removed`` rooms are holes (V3,
    M7): no path crosses them and their own distances are UNREACHABLE."""
    n = len(degree)
    out = np.full((n, n), UNREACHABLE, dtype=np.int8)
    gone = np.zeros(n, dtype=bool) if removed is None else removed
    for a in range(n):
        if gone[a]:
            continue
        out[a, a] = 0
        queue = deque([a])
        while queue:
            x = queue.popleft()
            for y in neighbours[x, : degree[x]]:
                if not gone[y] and out[a, y] == UNREACHABLE:
                    out[a, y] = out[a, x] + 1
                    queue.append(y)
    return out


def connected(neighbours: np.ndarray, degree: np.ndarray, removed: np.ndarray | None = None) -> bool:
    """Whether the rooms not removed form one part (L3, V4)."""
    gone = np.zeros(len(degree), dtype=bool) if removed is None else removed
    left = np.flatnonzero(~gone)
    if len(left) == 0:
        return True
    return bool((distances(neighbours, degree, gone)[left[0], left] < UNREACHABLE).all())


def build_board(
    rooms: list[tuple[int, int, int]],
    tiles: dict[int, tuple[int, bool, bool]],
    players: int,
    adjacency: list[tuple[int, int]] | None = None,
) -> Board:
    """The board of a layout (L1): ``rooms`` as (tile, q, r), each tile's (sterility, start, red)
    from ``tiles`` (L5), neighbours from the hex grid or the explicit ``adjacency`` pairs; checked
    by L3 for ``players``."""
    seen: dict[int, int] = {}
    where: dict[tuple[int, int], int] = {}
    for i, (tile, q, r) in enumerate(rooms):
        if tile in seen:
            raise LayoutError(
                f"rooms[{i}]: tile {tile} is listed twice (rooms[{seen[tile]}]); each tile at most once (L3)"
            )
        if tile not in tiles:
            raise LayoutError(f"rooms[{i}]: tile {tile} is not in [tiles] (L5)")
        if adjacency is None and (q, r) in where:
            other = rooms[where[q, r]][0]
            raise LayoutError(f"rooms[{i}]: tile {tile} at ({q}, {r}) where tile {other} already is")
        seen[tile] = i
        where[q, r] = i
    n = len(rooms)
    links: list[set[int]] = [set() for _ in range(n)]
    if adjacency is None:
        for i, (_, q, r) in enumerate(rooms):
            for dq, dr in HEX_STEPS:
                j = where.get((q + dq, r + dr))
                if j is not None:
                    links[i].add(j)
    else:
        for k, (a, b) in enumerate(adjacency):
            if a not in seen or b not in seen or a == b:
                raise LayoutError(
                    f"adjacency[{k}]: expected two different tiles of the rooms, got [{a}, {b}]"
                )
            links[seen[a]].add(seen[b])
            links[seen[b]].add(seen[a])
    degree = np.array([len(s) for s in links], dtype=np.int8)
    if n and degree.max() > MAX_NEIGHBOURS:
        i = int(degree.argmax())
        raise LayoutError(
            f"adjacency: tile {rooms[i][0]} has {degree[i]} neighbours; at most {MAX_NEIGHBOURS}"
        )
    neighbours = np.full((n, MAX_NEIGHBOURS), -1, dtype=np.int8)
    for i, s in enumerate(links):
        neighbours[i, : len(s)] = sorted(s, key=lambda j: rooms[j][0])
    tile = np.array([t for t, _, _ in rooms], dtype=np.int16)
    sterility = np.array([tiles[t][0] for t in tile], dtype=np.int8)
    start = np.array([tiles[t][1] for t in tile], dtype=bool)
    red = np.array([tiles[t][2] for t in tile], dtype=bool)
    board = Board(tile, sterility, start, red, neighbours, degree, distances(neighbours, degree))
    _check_l3(board, players)
    return board


def _check_l3(board: Board, players: int) -> None:
    """L3: connected, at least one start room per player, every start room next to a sterility-1 room."""
    if not connected(board.neighbours, board.degree):
        far = np.flatnonzero(board.distance[0] == UNREACHABLE)
        raise LayoutError(
            f"rooms: the rooms are not connected (tile {board.tile[far[0]]} cannot be reached from tile "
            f"{board.tile[0]}) (L3)"
        )
    starts = np.flatnonzero(board.start)
    if len(starts) < players:
        raise LayoutError(f"rooms: {len(starts)} start rooms for {players} players; at least one each (L3)")
    for s in starts:
        near = board.neighbours[s, : board.degree[s]]
        if not (board.sterility[near] == 1).any():
            raise LayoutError(
                f"rooms: start room {board.tile[s]} has no sterility-1 neighbour (L3: a first group must be "
                "able to grow)"
            )
