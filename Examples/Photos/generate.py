#!/usr/bin/env python3
"""Writes the sample data for Examples/Photos/model.json: a Flickr-like API response.

usage: python3 Examples/Photos/generate.py [--count N] [--seed S] [-o FILE]
       (defaults: 2000 records, seed 2011, Examples/Photos/photos.json)

The output is shaped like a response of Flickr's flickr.photos.search, so it imports with
`trove import STORE photos.json --entity Photo --root photos.photo`:

    {"photos": {"page": 1, "pages": 1, "perpage": N, "total": N, "photo": [ ...one record a line... ]},
     "stat": "ok"}

It is messy on purpose, the way web services are:
  - numbers as strings: views, o_width/o_height, latitude/longitude, some ids as numbers;
  - dates in several forms: Flickr's `dateupload` as epoch seconds (a string or a number), or
    `upload_date` in ISO 8601 with and without fraction and zone, or "YYYY-MM-DD HH:MM:SS";
  - booleans as true/false, 1/0, "1"/"0";
  - unknown keys the model does not read (farm, server, secret, license, ...);
  - owners nested as objects (with `nsid`/`username`, or `id`/`name`), or referenced by their
    id string, and a few owners only ever referenced (they stay stubs);
  - duplicates: some photos come again later with newer values (later values win);
  - tags as arrays of names;
  - a few bad records (BAD below), one per kind of rejection, so the import report shows them.

Only the standard library; the same arguments always give byte-identical output.
"""
import argparse
import datetime
import json
import os
import random
import sys

WORDS = ("sunset beach mountain city night river bridge street portrait dog cat bird flower tree "
         "snow rain fog lake forest market train station harbor boat cathedral museum park garden "
         "festival summer winter autumn spring morning evening light shadow skyline tower castle "
         "café München 東京 Zürich naïve").split()
TAGS = ("nikon canon fuji leica 35mm 50mm bw film hdr macro landscape street travel nature urban "
        "architecture portrait wildlife night longexposure").split()
PLACES = ("Seattle, WA|Berlin, Germany|Tokyo, Japan|São Paulo, Brazil|Paris, France|London, UK|"
          "Toronto, Canada|Zürich, Switzerland|Cape Town, South Africa").split("|")
FIRST = "Anna Ben Chloé Dmitri Elena Farid Gita Hiro Ines Jonas Kai Lea Mateo Noor Olu Priya".split()
LAST = "Smith Müller Tanaka Silva Dubois Kowalski Ng Okafor Rossi Larsen Haddad Novak".split()
EXTRA_KEYS = ("farm", "server", "secret", "license", "media", "iconserver")
BASE_ID = 5_200_000_000

# One record per kind of rejection: (what is wrong, how to break a good record).
BAD = (
    ("views is not a number", lambda r: r.update(views="lots")),
    ("the unique key id is missing", lambda r: r.pop("id")),
    ("not a date", lambda r: (r.pop("dateupload", None), r.update(upload_date="yesterday"))),
    ("not a boolean", lambda r: r.update(ispublic="maybe")),
    ("a fraction into an integer", lambda r: r.update(o_width=640.5)),
    ("below the model's min 0", lambda r: r.update(views=-3)),
    ("a nested owner without its unique key", lambda r: r.update(owner={"username": "ghost"})),
    ("not an absolute URL", lambda r: r.update(url_m="not a url")),
    ("tags as Flickr's space-separated string", lambda r: r.update(tags="sunset beach")),
)


def photographer(k):
    r = random.Random(k)
    return {"nsid": f"{10_000_000 + k * 7919}@N0{k % 8}",
            "name": f"{r.choice(FIRST)} {r.choice(LAST)}",
            "location": r.choice(PLACES)}


def owner_value(rng, who, referenced_only):
    """The owner as a web service sends it: nested in one of two spellings, or by id."""
    u = rng.random()
    if referenced_only or u < 0.55:
        return who["nsid"]
    if u < 0.65:
        return {"id": who["nsid"], "name": who["name"]}
    nested = {"nsid": who["nsid"], "username": who["name"]}
    if rng.random() < 0.7:
        nested["location"] = who["location"]
    return nested


def upload_date(rng, rec):
    t = rng.randint(1_104_537_600, 1_719_792_000)  # 2005-01-01 ... 2024-07-01
    u = rng.random()
    if u < 0.30:
        rec["dateupload"] = str(t)
    elif u < 0.45:
        rec["dateupload"] = t
    elif u < 0.95:
        when = datetime.datetime.fromtimestamp(t, datetime.timezone.utc)
        y, mo, d, h, mi, s = when.year, when.month, when.day, when.hour, when.minute, when.second
        v = rng.random()
        if v < 0.5:
            rec["upload_date"] = f"{y:04d}-{mo:02d}-{d:02d}T{h:02d}:{mi:02d}:{s:02d}Z"
        elif v < 0.8:
            hours = rng.choice((-5, 1, 2, 9))
            local = when + datetime.timedelta(hours=hours)
            rec["upload_date"] = (f"{local:%Y-%m-%dT%H:%M:%S}.{rng.randint(0, 999):03d}"
                                  f"{'-' if hours < 0 else '+'}{abs(hours):02d}:00")
        else:
            rec["upload_date"] = f"{y:04d}-{mo:02d}-{d:02d} {h:02d}:{mi:02d}:{s:02d}"


def photo(rng, i, who, referenced_only):
    pid = BASE_ID + i * 13 + (i * 7) % 13
    rec = {"id": pid if rng.random() < 0.1 else str(pid)}
    rec["title"] = (rng.randint(1900, 2024) if rng.random() < 0.03
                    else " ".join(rng.choice(WORDS) for _ in range(rng.randint(1, 3))).capitalize())
    upload_date(rng, rec)
    u = rng.random()
    if u < 0.75:
        rec["views"] = rng.randint(0, 50_000)
    elif u < 0.95:
        rec["views"] = str(rng.randint(0, 50_000))
    if rng.random() < 0.5:
        w, h = rng.choice(((640, 480), (480, 640), (640, 427), (500, 500)))
        as_text = rng.random() < 0.5
        rec["o_width"], rec["o_height"] = (str(w), str(h)) if as_text else (w, h)
    if rng.random() < 0.4:
        lat, lon = round(rng.uniform(-60, 70), 6), round(rng.uniform(-180, 180), 6)
        as_text = rng.random() < 0.3
        rec["latitude"], rec["longitude"] = (str(lat), str(lon)) if as_text else (lat, lon)
    pub = rng.random() < 0.85
    u = rng.random()
    rec["ispublic"] = pub if u < 0.5 else (int(pub) if u < 0.85 else str(int(pub)))
    if rng.random() < 0.15:
        rec["url_m"] = f"https://live.staticflickr.com/{rng.randint(1000, 9999)}/{pid}_m.jpg"
    if rng.random() < 0.95:
        rec["owner"] = owner_value(rng, who, referenced_only)
    if rng.random() < 0.8:
        rec["tags"] = rng.sample(TAGS, rng.randint(0, 3))
    for key in rng.sample(EXTRA_KEYS, 1 if rng.random() < 0.7 else 2):
        rec[key] = rng.choice((rng.randint(1, 66), str(rng.randint(1000, 9999)), f"{rng.getrandbits(32):08x}"))
    return rec


def generate(count, seed):
    rng = random.Random(seed)
    n_people = max(2, count // 30)
    people = [photographer(k) for k in range(n_people)]
    only_referenced = set(range(n_people - 2, n_people))  # these two stay stubs
    records = []
    for i in range(count):
        k = rng.randrange(n_people)
        records.append(photo(rng, i, people[k], k in only_referenced))
    # Duplicates: 2% of photos come again later, with more views (later values win).
    for i in sorted(rng.sample(range(count // 2), count // 50)):
        again = dict(records[i])
        again["views"] = rng.randint(50_001, 90_000)
        records.insert(rng.randrange(count // 2, len(records)), again)
    for (_, breaks), at in zip(BAD, sorted(rng.sample(range(len(records)), len(BAD)))):
        bad = dict(records[at])
        breaks(bad)
        records[at] = bad
    return records


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    parser = argparse.ArgumentParser(description="Write Flickr-like sample data for Examples/Photos/model.json.")
    parser.add_argument("--count", type=int, default=2000, help="photos before duplicates (default 2000)")
    parser.add_argument("--seed", type=int, default=2011, help="random seed (default 2011)")
    parser.add_argument("-o", "--output", default=os.path.join(here, "photos.json"), help="output file")
    args = parser.parse_args()
    records = generate(args.count, args.seed)
    lines = ",\n".join(json.dumps(r, ensure_ascii=False, separators=(",", ":")) for r in records)
    head = {"page": 1, "pages": 1, "perpage": len(records), "total": len(records)}
    text = '{"photos":' + json.dumps(head, separators=(",", ":"))[:-1] + ',"photo":[\n' + lines + '\n]},"stat":"ok"}\n'
    with open(args.output, "w", encoding="utf-8", newline="\n") as f:
        f.write(text)
    print(f"{args.output}: {len(records)} records, {len(text.encode()) // 1024} KB", file=sys.stderr)


if __name__ == "__main__":
    main()
