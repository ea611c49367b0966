"""Checks what deploy/ tells the project's binaries against the binaries and against itself.

- Each container's entrypoint with its arguments and environment (the image's ENV, then the
  container's) is run with `--check-config`: `solver-server` and `solver-worker` parse their
  flags and environment as a start does (values, ranges, options that need each other), then
  exit without starting. Values from secrets or the downward API are placeholders.
- Each other command (the images' and compose's health checks, exec probes) is run with `--help`
  appended: clap rejects an unknown option or a bad value before it prints the help.
- Each SOLVER_* variable set for a container or in an image must be one its entrypoint reads
  (its `--help` lists `[env: NAME`), and each health check or probe must run a binary that its
  image holds (docker/Dockerfile's `COPY --from=build` lines).
- Ports agree: probes and health checks ask the port the server listens on (`--addr` or
  SOLVER_ADDR), Services and published ports lead to ports a container listens on, a worker's
  `--server` names a Service (or a StatefulSet's pod) and its port, and compose's named volumes
  are declared.

The entrypoints are those of docker/Dockerfile's stages; an image named `solver-STAGE`
(deploy/README.md) runs stage STAGE's.

Usage: python3 deploy/check_commands.py BIN_DIR   (BIN_DIR holds solver-server,
solver-worker and solver, e.g. $CARGO_TARGET_DIR/debug). Exit status 1 names each problem.
"""

import json
import os
import pathlib
import re
import shlex
import subprocess
import sys
import urllib.parse

import yaml

DEPLOY = pathlib.Path(__file__).resolve().parent
BINARIES = ("solver-server", "solver-worker", "solver")
# Binaries that take --check-config.
CHECKED = ("solver-server", "solver-worker")
PLACEHOLDER = "placeholder"


class Stage:
    def __init__(self, base=None):
        self.entrypoint = list(base.entrypoint) if base else []
        self.env = dict(base.env) if base else {}
        self.binaries = set(base.binaries) if base else set()
        self.healthcheck = base.healthcheck if base else None


def dockerfile(problems):
    """docker/Dockerfile's stages by name."""
    stages, stage, name = {}, None, None
    text = (DEPLOY / "docker" / "Dockerfile").read_text()
    # One logical line per instruction (continuations joined, comments between them dropped).
    for line in re.sub(r"\\\n(\s*#[^\n]*\n)*", " ", text).splitlines():
        words = [w for w in line.split() if not w.startswith("--platform=")]
        if not words or words[0].startswith("#"):
            continue
        instruction, rest = words[0].upper(), line.split(None, 1)[1] if len(words) > 1 else ""
        where = f"Dockerfile {instruction} (stage {name})"
        if instruction == "FROM":
            name = words[3] if len(words) >= 4 and words[2].upper() == "AS" else None
            stage = stages[name] = Stage(stages.get(words[1]))
        elif instruction == "ENV":
            stage.env.update(re.findall(r"(\w+)=(\S+)", rest))
        elif instruction == "COPY" and "--from=build" in words:
            stage.binaries.update(pathlib.Path(w).name for w in words[1:-1] if w.startswith("/"))
        elif instruction in ("ENTRYPOINT", "HEALTHCHECK"):
            if instruction == "HEALTHCHECK" and words[1].upper() == "NONE":
                stage.healthcheck = None
                continue
            form = rest[rest.index("CMD") + 3 :] if instruction == "HEALTHCHECK" else rest
            try:
                argv = json.loads(form)
            except ValueError:
                problems.append(f"{where}: not in exec (JSON) form: {form.strip()}")
                continue
            if instruction == "ENTRYPOINT":
                stage.entrypoint = argv
            else:
                stage.healthcheck = argv
    return stages


def image_stage(stages, image):
    """The stage an image named solver-STAGE[:TAG] was built from, by its registry-less name."""
    name = image.rsplit("/", 1)[-1].split("@", 1)[0].split(":", 1)[0]
    return stages.get(name.removeprefix("solver-"))


def run(bin_dir, argv, extra, env):
    try:
        return subprocess.run(
            [str(bin_dir / argv[0]), *argv[1:], extra],
            capture_output=True,
            text=True,
            timeout=60,
            env={"PATH": os.environ.get("PATH", ""), **env},
        )
    except OSError as e:
        return subprocess.CompletedProcess(argv, 127, "", str(e))


def error_text(completed):
    """clap's error without its usage lines (its first paragraph), on one line."""
    paragraph = completed.stderr.strip().split("\n\n", 1)[0]
    return " ".join(paragraph.split()) or f"exit {completed.returncode}"


class Checker:
    def __init__(self, bin_dir):
        self.bin_dir = bin_dir
        self.problems = []
        self.commands = 0
        self.help = {}

    def problem(self, text):
        self.problems.append(text)

    def help_text(self, binary):
        if binary not in self.help:
            self.help[binary] = run(self.bin_dir, [binary], "--help", {}).stdout
        return self.help[binary]

    def entrypoint(self, where, argv, env, unset=()):
        """A container's main command with its environment (name -> value), and the names of
        variables passed on from elsewhere only when set (left out of the run)."""
        self.commands += 1
        if not argv or argv[0] not in CHECKED:
            self.problem(f"{where}: {argv!r} does not run one of {CHECKED}")
            return
        done = run(self.bin_dir, argv, "--check-config", env)
        if done.returncode != 0 or done.stdout != "configuration ok\n":
            self.problem(f"{where}: {' '.join(argv)}: {error_text(done)}")
        text = self.help_text(argv[0])
        for name in [*env, *unset]:
            if name.startswith("SOLVER_") and not re.search(rf"\[env: {name}[=\]]", text):
                self.problem(f"{where}: {argv[0]} does not read {name}")

    def command(self, where, argv, binaries):
        """A health check or probe, run in an image that holds `binaries`."""
        self.commands += 1
        if not argv or argv[0] not in BINARIES:
            self.problem(f"{where}: {argv!r} does not run one of {BINARIES}")
            return
        if argv[0] not in binaries:
            self.problem(f"{where}: the image holds {sorted(binaries)}, not {argv[0]}")
        done = run(self.bin_dir, argv, "--help", {})
        if done.returncode != 0:
            self.problem(f"{where}: {' '.join(argv)}: {error_text(done)}")


def option(argv, env, flag, variable):
    """The value of --flag in argv, else of the environment variable."""
    for i, word in enumerate(argv):
        if word == flag and i + 1 < len(argv):
            return argv[i + 1]
        if word.startswith(flag + "="):
            return word.split("=", 1)[1]
    return env.get(variable)


def port_of(address):
    """The port of HOST:PORT, or None."""
    return int(address.rsplit(":", 1)[1]) if address and ":" in address else None


def listening(argv, env):
    """The ports a server's command line listens on, by name (grpc, metrics)."""
    ports = {"grpc": port_of(option(argv, env, "--addr", "SOLVER_ADDR") or "127.0.0.1:50051")}
    metrics = port_of(option(argv, env, "--metrics-addr", "SOLVER_METRICS_ADDR"))
    if metrics:
        ports["metrics"] = metrics
    return ports


def server_url(argv, env):
    """(host, port) of a --server URL in a command line, or None."""
    url = option(argv, env, "--server", "SOLVER_SERVER")
    if not url:
        return None
    parsed = urllib.parse.urlsplit(url)
    return parsed.hostname, parsed.port


def check_k8s(checker, stages):
    docs = []
    for path in sorted((DEPLOY / "k8s").glob("*.yaml")):
        docs += [(path.name, d) for d in yaml.safe_load_all(path.read_text()) if d]
    pods = []  # (name, labels, container, argv, env, listening ports by name)
    for file, doc in docs:
        template = (doc.get("spec") or {}).get("template") or {}
        for container in (template.get("spec") or {}).get("containers", []):
            where = f"k8s/{file} {doc['kind']} {container['name']}"
            stage = image_stage(stages, container.get("image", ""))
            if stage is None:
                checker.problem(f"{where}: image {container.get('image')!r} is no Dockerfile stage")
                continue
            env = dict(stage.env)
            for e in container.get("env") or []:
                env[e["name"]] = e.get("value", PLACEHOLDER)
            argv = list(container.get("command") or stage.entrypoint)
            argv += list(container.get("args") or [])
            checker.entrypoint(where, argv, env)
            ports = {p.get("name"): p["containerPort"] for p in container.get("ports") or []}
            serving = listening(argv, env) if argv[:1] == ["solver-server"] else {}
            for name, number in ports.items():
                if serving.get(name) != number:
                    checker.problem(f"{where}: port {name} {number} is not the one it listens on")
            for probe in ("startupProbe", "readinessProbe", "livenessProbe"):
                spec = container.get(probe) or {}
                if "exec" in spec:
                    checker.command(f"{where} {probe}", spec["exec"]["command"], stage.binaries)
                if "grpc" in spec and spec["grpc"]["port"] != serving.get("grpc"):
                    checker.problem(f"{where} {probe}: port {spec['grpc']['port']} is not gRPC's")
            labels = (template.get("metadata") or {}).get("labels") or {}
            pods.append((doc["metadata"]["name"], doc, labels, ports, argv, env, where))
    services = {d["metadata"]["name"]: d for _, d in docs if d["kind"] == "Service"}
    for name, service in services.items():
        selector = service["spec"].get("selector") or {}
        chosen = [p for p in pods if selector and selector.items() <= p[2].items()]
        if not chosen:
            checker.problem(f"k8s Service {name}: its selector {selector} selects no pod here")
        for port in service["spec"].get("ports", []):
            target = port.get("targetPort", port["port"])
            for pod in chosen:
                if target not in pod[3] and target not in pod[3].values():
                    checker.problem(
                        f"k8s Service {name}: targetPort {target} is not a port of {pod[0]}"
                    )
    for owner, doc, labels, ports, argv, env, where in pods:
        url = server_url(argv, env) if argv[:1] == ["solver-worker"] else None
        if url is None:
            continue
        host, port = url
        service = services.get(host.split(".")[-1])
        names = {service["metadata"]["name"]} if service else set()
        for _, sts in [d for d in docs if d[1]["kind"] == "StatefulSet"]:
            if service and sts["spec"].get("serviceName") == service["metadata"]["name"]:
                names |= {
                    f"{sts['metadata']['name']}-{i}.{sts['spec']['serviceName']}"
                    for i in range(sts["spec"].get("replicas", 1))
                }
        if host not in names:
            checker.problem(f"{where}: --server host {host} is no Service or pod name here")
            continue
        grpc_port = next((p for p in service["spec"]["ports"] if p["port"] == port), None)
        if grpc_port is None:
            checker.problem(f"{where}: --server port {port} is no port of Service {host}")


def check_compose(checker, stages):
    compose = yaml.safe_load((DEPLOY / "compose.yaml").read_text())
    services = {}
    for name, service in compose["services"].items():
        where = f"compose.yaml {name}"
        target = (service.get("build") or {}).get("target")
        stage = stages.get(target) if target else image_stage(stages, service.get("image", ""))
        if stage is None:
            checker.problem(f"{where}: no Dockerfile stage for it")
            continue
        environment = service.get("environment") or {}
        if isinstance(environment, list):
            environment = dict((e.split("=", 1) + [None])[:2] for e in environment)
        # A bare name passes the user's variable on only when it is set: its value is unknown.
        unset = [k for k, v in environment.items() if v is None]
        env = {**stage.env, **{k: str(v) for k, v in environment.items() if v is not None}}
        command = service.get("command") or []
        command = shlex.split(command) if isinstance(command, str) else list(command)
        argv = list(service.get("entrypoint") or stage.entrypoint) + command
        checker.entrypoint(where, argv, env, unset)
        services[name] = (argv, env, listening(argv, env) if argv[:1] == ["solver-server"] else {})
        test = (service.get("healthcheck") or {}).get("test") or ["NONE"]
        if test[0] == "CMD":
            checker.command(f"{where} healthcheck", test[1:], stage.binaries)
            url = server_url(test[1:], {})
            if url and url[1] != services[name][2].get("grpc"):
                checker.problem(f"{where} healthcheck: port {url[1]} is not gRPC's")
        elif test[0] != "NONE":
            checker.problem(f"{where} healthcheck: not in CMD form: {test}")
        for published in service.get("ports") or []:
            inside = int(str(published).rsplit(":", 1)[-1].split("/")[0])
            if inside not in services[name][2].values():
                checker.problem(f"{where}: publishes port {inside}, which it does not listen on")
        for volume in service.get("volumes") or []:
            source = str(volume).split(":", 1)[0]
            if not source.startswith((".", "/", "~")) and source not in (
                compose.get("volumes") or {}
            ):
                checker.problem(f"{where}: volume {source} is not declared")
    for name, (argv, env, _) in services.items():
        url = server_url(argv, env) if argv[:1] == ["solver-worker"] else None
        if url and url[1] != services.get(url[0], ([], {}, {}))[2].get("grpc"):
            checker.problem(f"compose.yaml {name}: --server {url[0]}:{url[1]} is no server here")


def main():
    checker = Checker(pathlib.Path(sys.argv[1]))
    stages = dockerfile(checker.problems)
    for name, stage in stages.items():
        if stage.entrypoint[:1] and stage.entrypoint[0] in CHECKED:
            checker.entrypoint(f"Dockerfile ENTRYPOINT (stage {name})", stage.entrypoint, stage.env)
        if stage.healthcheck:
            checker.command(
                f"Dockerfile HEALTHCHECK (stage {name})", stage.healthcheck, stage.binaries
            )
    check_k8s(checker, stages)
    check_compose(checker, stages)
    for p in checker.problems:
        print(p, file=sys.stderr)
    sys.stderr.flush()
    print(f"deploy/: {checker.commands} command lines checked, {len(checker.problems)} problems")
    return 1 if checker.problems else 0


if __name__ == "__main__":
    sys.exit(main())
