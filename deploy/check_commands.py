"""Checks every command line that deploy/ gives the project's binaries against the binaries.

Each command (a container's entrypoint with its args, a probe's or health check's exec
command) is run with `--help` appended: clap parses and validates every argument before it,
so an unknown option or a bad value fails here, while a good line only prints the help. Each
SOLVER_* variable set for a container (or in an image) must be one that its entrypoint reads
(its `--help` lists `[env: NAME`). The entrypoints are those of docker/Dockerfile's stages; an
image named `solver-STAGE` (deploy/README.md) runs stage STAGE's.

Usage: python3 deploy/check_commands.py BIN_DIR   (BIN_DIR holds solver-server,
solver-worker and solver, e.g. $CARGO_TARGET_DIR/debug). Exit status 1 names each failure.
"""

import json
import pathlib
import re
import subprocess
import sys

import yaml

DEPLOY = pathlib.Path(__file__).resolve().parent
BINARIES = ("solver-server", "solver-worker", "solver")


def help_text(bin_dir, argv):
    """The output of `argv --help`, or an error line."""
    exe = bin_dir / argv[0]
    run = subprocess.run(
        [str(exe), *argv[1:], "--help"], capture_output=True, text=True, timeout=60
    )
    if run.returncode != 0:
        return None, (
            run.stderr.strip().splitlines()[0] if run.stderr.strip() else f"exit {run.returncode}"
        )
    return run.stdout, None


def check(bin_dir, where, argv, env_names=()):
    """Problems with one command line and the SOLVER_* variables set for it."""
    if not argv or argv[0] not in BINARIES:
        return [f"{where}: {argv!r} does not run one of {BINARIES}"]
    text, err = help_text(bin_dir, argv)
    if err:
        return [f"{where}: {' '.join(argv)}: {err}"]
    return [
        f"{where}: {argv[0]} does not read {name}"
        for name in env_names
        if name.startswith("SOLVER_") and not re.search(rf"\[env: {name}[=\]]", text)
    ]


def dockerfile():
    """docker/Dockerfile's entrypoint per stage, and (where, argv, env names) for each stage's
    entrypoint with the variables the stage sets, and for each health check."""
    entrypoints, env, commands, stage = {}, {}, [], None
    text = (DEPLOY / "docker" / "Dockerfile").read_text()
    # One logical line per instruction (continuations joined); comments dropped.
    lines = re.sub(r"\\\n(\s*#[^\n]*\n)*", " ", text).splitlines()
    for line in lines:
        words = line.split()
        if not words or words[0].startswith("#"):
            continue
        if words[0] == "FROM":
            stage = words[3] if len(words) >= 4 and words[2].upper() == "AS" else None
            env[stage] = dict(env.get(words[1], {}))
        elif words[0] == "ENV":
            env[stage].update(re.findall(r"(\w+)=(\S+)", line))
        elif words[0] == "ENTRYPOINT":
            entrypoints[stage] = json.loads(line.split(None, 1)[1])
        elif words[0] == "HEALTHCHECK":
            argv = json.loads(line[line.index("CMD") + 3 :])
            commands.append((f"Dockerfile HEALTHCHECK (stage {stage})", argv, []))
    for stage, argv in entrypoints.items():
        commands.append((f"Dockerfile ENTRYPOINT (stage {stage})", argv, list(env[stage])))
    return entrypoints, commands


ENTRYPOINTS, DOCKERFILE_COMMANDS = dockerfile()


def image_entrypoint(image):
    """The entrypoint of an image named solver-STAGE[:TAG], by its registry-less name."""
    name = image.rsplit("/", 1)[-1].split("@", 1)[0].split(":", 1)[0]
    return ENTRYPOINTS.get(name.removeprefix("solver-"), [])


def container_commands(where, container):
    out = []
    command = container.get("command") or image_entrypoint(container.get("image", ""))
    argv = list(command) + list(container.get("args") or [])
    env = [e["name"] for e in container.get("env") or []]
    out.append((f"{where} container {container['name']}", argv, env))
    for probe in ("startupProbe", "readinessProbe", "livenessProbe"):
        exec_ = (container.get(probe) or {}).get("exec")
        if exec_:
            out.append((f"{where} {probe}", exec_["command"], []))
    return out


def k8s_commands():
    out = []
    for path in sorted((DEPLOY / "k8s").glob("*.yaml")):
        for doc in yaml.safe_load_all(path.read_text()):
            pod = ((doc or {}).get("spec") or {}).get("template", {}).get("spec")
            if pod:
                for container in pod.get("containers", []) + pod.get("initContainers", []):
                    out += container_commands(f"k8s/{path.name} {doc['kind']}", container)
    return out


def compose_commands():
    out = []
    compose = yaml.safe_load((DEPLOY / "compose.yaml").read_text())
    for name, service in compose["services"].items():
        target = (service.get("build") or {}).get("target")
        entrypoint = (
            ENTRYPOINTS.get(target) if target else image_entrypoint(service.get("image", ""))
        )
        environment = service.get("environment") or []
        env = (
            list(environment)
            if isinstance(environment, dict)
            else [e.split("=", 1)[0] for e in environment]
        )
        argv = list(service.get("entrypoint") or entrypoint or []) + list(
            service.get("command") or []
        )
        out.append((f"compose.yaml {name}", argv, env))
        test = (service.get("healthcheck") or {}).get("test")
        if test:
            if test[0] != "CMD":
                out.append((f"compose.yaml {name} healthcheck", test, []))
            else:
                out.append((f"compose.yaml {name} healthcheck", test[1:], []))
    return out


def main():
    bin_dir = pathlib.Path(sys.argv[1])
    commands = DOCKERFILE_COMMANDS + k8s_commands() + compose_commands()
    problems = [p for where, argv, env in commands for p in check(bin_dir, where, argv, env)]
    for p in problems:
        print(p, file=sys.stderr)
    sys.stderr.flush()
    print(f"deploy/: {len(commands)} command lines checked, {len(problems)} problems")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
