"""Malformed requests, many of them, between real moves: none may cause a 5xx, each must be
refused with a 4xx and a message, and none may lose (or add) a stored event."""

from __future__ import annotations

import json
import random

import pytest

from companion.games import get_game

N_REQUESTS = 1200

JUNK_VALUES = [None, True, False, 0, -1, 2**63, 1e308, -0.0, "", " ", "x" * 5000, "💥", "null",
               "../../etc/passwd", "<script>alert(1)</script>", [], [[]], {}, {"": None},
               [1, "a", None], {"move": None}, "surya-13", "raja-surya", "'; DROP TABLE events;--"]


def junk(rng: random.Random, depth: int = 0):
    r = rng.random()
    if depth > 2 or r < 0.5:
        return rng.choice(JUNK_VALUES)
    if r < 0.75:
        return [junk(rng, depth + 1) for _ in range(rng.randint(0, 4))]
    return {rng.choice(["move", "player", "action", "cards", "choice", "game", "players", "x",
                        "seats", "options", "winners", "corners", "delete"]): junk(rng, depth + 1)
            for _ in range(rng.randint(0, 4))}


def bad_move(rng: random.Random) -> dict:
    """A move that Move.from_json must refuse."""
    good = {"player": 0, "action": "play", "cards": ["surya-1"], "target": "1"}
    choice = rng.randrange(7)
    if choice == 0:
        good["player"] = rng.choice([-1, "0", None, True, 1.5, [], 2**70 * -1])
    elif choice == 1:
        good["action"] = rng.choice(["", None, 3, [], {}])
    elif choice == 2:
        good["cards"] = rng.choice(["surya-1", [None], ["surya-0"], ["moon-3"], [["x"]], {}])
    elif choice == 3:
        good["target"] = rng.choice([None, True, [], {}, 1.5])
    elif choice == 4:
        good[rng.choice(["who", "card", "extra"])] = junk(rng)
    elif choice == 5:
        del good["player"]
    else:
        del good["action"]
    return good


def malformed(rng: random.Random, event_ids: list[int]) -> tuple[str, str, dict]:
    """(method, path, request kwargs) for one request that must be refused."""
    some_id = rng.choice(event_ids + [0, -1, 10**12]) if event_ids else 10**12
    kind = rng.randrange(14)
    if kind == 0:
        return "POST", "/api/move", {"json": {"move": bad_move(rng)}}
    if kind == 1:
        return "POST", "/api/move", {"json": junk(rng) if rng.random() < 0.5 else [1, 2]}
    if kind == 2:
        return "POST", "/api/move", {"data": rng.randbytes(rng.randint(0, 300)),
                                     "content_type": rng.choice(["application/json",
                                                                 "text/plain", ""])}
    if kind == 3:
        body = rng.choice([{"game": junk(rng), "players": 4},
                           {"game": "kendra-kari", "players": rng.choice([0, 1, 9, -3, "4",
                                                                          None, 4.5])},
                           {"game": "kendra-kari", "players": 4,
                            "options": rng.choice([{"nope": 1}, {"direction": "up"}, [1], "x"])},
                           {"game": "kendra-kari", "players": 4, "seats": junk(rng) or [1]}])
        if isinstance(body.get("seats"), list) and all(isinstance(s, str) for s in body["seats"]):
            body["seats"] = [1]
        if body.get("game") == "kendra-kari" and body.get("players") == 4 and \
                "options" not in body and "seats" not in body:
            body["players"] = 0
        return "POST", "/api/setup", {"json": body}
    if kind == 4:
        return "POST", f"/api/moves/{some_id}/correct", {"json": {"move": bad_move(rng)}}
    if kind == 5:
        return "POST", f"/api/moves/{rng.choice(['x', '-1', '1.5', '%00'])}/correct", {
            "json": {"delete": True}}
    if kind == 6:
        return "POST", f"/api/pending/{rng.randint(-5, 10**9)}", {"json": {"choice": junk(rng)}}
    if kind == 7:
        return "POST", "/api/end", {"json": {"winners": rng.choice(
            [[-1], [99], ["0"], [None], "all", [True], {"a": 1}])}}
    if kind == 8:
        return "GET", rng.choice(["/api/announcements?after=x", "/api/announcements?limit=0",
                                  "/api/announcements?limit=999999", "/api/tracker?deck=tarot",
                                  "/api/export.csv?session=-1", "/api/export.json?session=zz",
                                  "/api/card/" + rng.choice(["x", "surya-", "-", "surya-99",
                                                             "a" * 300]),
                                  "/api/card/surya-1?game=" + "g" * 60,
                                  "/api/layout/" + rng.choice(["nope", "..", "%2e%2e"]),
                                  "/static/../store.py", "/api/nothing-here"]), {}
    if kind == 9:
        name = rng.choice(["card.exe", "card", "card.png", "card.jpg", ".png"])
        return "POST", "/api/identify", {"data": {"photo": (
            __import__("io").BytesIO(rng.randbytes(rng.randint(0, 2000))), name)}}
    if kind == 10:
        return "POST", "/api/calibration", {"json": {"corners": rng.choice(
            [[[0, 0]] * 3, [[0, 0, 0]] * 4, [["a", 1]] * 4, [[-5, 1]] * 4, "corners", None,
             [[1e9, 1]] * 4, [[True, 1]] * 4])}}
    if kind == 11:
        return rng.choice(["PUT", "DELETE", "PATCH"]), rng.choice(
            ["/api/move", "/api/setup", "/api/state", "/api/end"]), {"json": junk(rng)}
    if kind == 12:
        return "POST", rng.choice(["/api/move", "/api/setup", "/api/end", "/api/calibration"]), {
            "data": json.dumps(junk(rng)) + rng.choice(["", "}", "]]", "\x00"]),
            "content_type": "application/json"}
    return "GET", "/api/stream", {"headers": {"Last-Event-ID": rng.choice(["x", "1.5", "-"])}}


@pytest.mark.parametrize("seed", [1])
def test_malformed_requests_get_4xx_and_lose_nothing(start, client, app, bridge_record, seed):
    rng = random.Random(seed)
    kk = get_game("kendra-kari")
    start(client)
    store = app.extensions["companion"].store
    sent: list[dict] = []
    moves = iter(bridge_record.moves[:-1])  # stop short of the winning move: the game stays
    statuses: dict[int, int] = {}
    for i in range(N_REQUESTS):
        if i % 25 == 0:
            m = next(moves, None)
            if m is not None:
                r = client.post("/api/move", json={"move": m.to_json()})
                assert r.status_code == 201, r.get_json()
                sent.append(kk.public_move(m).to_json())
        ids = [e.id for e in store.events(client.get("/api/state").get_json()["game"]["id"])]
        method, path, kwargs = malformed(rng, ids)
        if path == "/api/stream":
            r = client.open(path, method=method, buffered=False, **kwargs)
        else:
            r = client.open(path, method=method, **kwargs)
        statuses[r.status_code] = statuses.get(r.status_code, 0) + 1
        assert r.status_code < 500, (method, path, kwargs, r.data[:300])
        assert 400 <= r.status_code < 500, (method, path, kwargs, r.status_code, r.data[:300])
        if path.startswith("/api/"):
            assert r.is_json and r.get_json()["error"], (path, r.data[:200])
        r.close()
    game = client.get("/api/state").get_json()["game"]
    stored = [e.payload["move"] for e in store.events(game["id"])]
    assert stored == sent  # every real move, in order; nothing lost, nothing added
    assert len(store.events(game["id"], include_inactive=True)) == len(sent)
    assert sum(statuses.values()) >= 1000
