#!/usr/bin/env python3
"""Package.swift's targets as `swift package describe --type json` gives them, for the tools that compile the
package's modules themselves (the board build, the fuzzers): one reading of the graph, so a module added, split
or renamed in Package.swift needs no change in Tools/.

    swift package describe --type json | Tools/board/package_graph.py board TARGET
prints, for the board build, the Swift library modules TARGET depends on (directly or not), each after its
dependencies ("module NAME"), their folders and TARGET's ("path DIR"), the system libraries they reach
("c-module DIR") and every Swift source ("source FILE", sorted). Exit status 1, saying why, for what the board
build cannot compile (a C target with sources of its own, a dependency on another package)."""

import json
import sys


def targets(described):
    """Target name -> its description."""
    return {target["name"]: target for target in json.loads(described)["targets"]}


def closure(graph, names):
    """The targets `names` and every target they depend on, dependencies first: visited depth first in the order
    Package.swift lists them, so the order is stable."""
    order, seen = [], set()

    def visit(name):
        if name in seen:
            return
        seen.add(name)
        for dependency in graph[name].get("target_dependencies", []):
            visit(dependency)
        order.append(graph[name])

    for name in names:
        visit(name)
    return order


def board(graph, agent):
    if agent not in graph:
        sys.exit("Package.swift has no target " + agent)
    sources = []
    for target in closure(graph, [agent]):
        if target.get("product_dependencies"):
            sys.exit(target["name"] + " depends on another package: the board build compiles this package alone")
        if target["type"] == "system-target":
            print("c-module", target["path"])
            continue
        if target["module_type"] != "SwiftTarget":
            sys.exit(target["name"] + " is a " + target["module_type"]
                     + ": the board build compiles Swift targets and system libraries only")
        if target["name"] != agent:
            print("module", target["name"])
        print("path", target["path"])
        sources += [target["path"] + "/" + source for source in target["sources"] if source.endswith(".swift")]
    for source in sorted(sources):
        print("source", source)


if __name__ == "__main__":
    if len(sys.argv) != 3 or sys.argv[1] != "board":
        sys.exit("usage: swift package describe --type json | Tools/board/package_graph.py board TARGET")
    board(targets(sys.stdin.read()), sys.argv[2])
