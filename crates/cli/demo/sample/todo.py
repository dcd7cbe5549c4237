"""A tiny to-do list kept in a JSON file next to the current directory."""

import argparse
import json
import os
import sys

STORE = os.environ.get("TODO_FILE", "todo.json")


def load_tasks(path=None):
    """Returns the saved tasks, or an empty list when nothing is saved yet."""
    path = path or STORE
    if not os.path.exists(path):
        return []
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def save_tasks(tasks, path=None):
    with open(path or STORE, "w", encoding="utf-8") as f:
        json.dump(tasks, f, indent=2)


def cmd_add(args):
    tasks = load_tasks()
    tasks.append({"id": len(tasks) + 1, "title": args.title, "done": False})
    save_tasks(tasks)
    print(f"added #{len(tasks)}: {args.title}")


def cmd_done(args):
    tasks = load_tasks()
    for task in tasks:
        if task["id"] == args.id:
            task["done"] = True
            save_tasks(tasks)
            print(f"done #{task['id']}: {task['title']}")
            return 0
    print(f"no task #{args.id}", file=sys.stderr)
    return 1


def format_task(task):
    mark = "x" if task["done"] else " "
    return f"[{mark}] #{task['id']} {task['title']}"


def cmd_list(args):
    for task in load_tasks():
        print(format_task(task))


def main(argv=None):
    parser = argparse.ArgumentParser(prog="todo", description="A tiny to-do list.")
    sub = parser.add_subparsers(dest="command", required=True)

    add_p = sub.add_parser("add", help="add a task")
    add_p.add_argument("title")
    add_p.set_defaults(func=cmd_add)

    done_p = sub.add_parser("done", help="mark a task as done")
    done_p.add_argument("id", type=int)
    done_p.set_defaults(func=cmd_done)

    list_p = sub.add_parser("list", help="show all tasks")
    list_p.set_defaults(func=cmd_list)

    args = parser.parse_args(argv)
    return args.func(args) or 0


if __name__ == "__main__":
    sys.exit(main())
