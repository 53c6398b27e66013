"""mini-swe-agent with every observation pruned by `skim serve` (docs/agents.md, section 1).

SkimEnvironment runs each command as mini-swe-agent's LocalEnvironment does, then posts its
output to skim (POST /v1/prune with the command, the agent's THOUGHT as the goal hint, the task
and a session id) and hands the agent the pruned text: passing tests, progress noise and lines
the agent was already shown fold into markers such as
    [skim: 150 lines of passed tests omitted (9-158); skim show 3fa2c1d9e0:9-158]
With SKIM_SERVER and SKIM_SESSION in the agent's environment, that `skim show` command prints
the omitted lines from the server. For mini-swe-agent 2.x and 1.x. Standard library only;
should skim be unreachable or refuse the request, the agent gets the output unchanged.

    env = SkimEnvironment(skim_url="http://127.0.0.1:8000", session=instance_id, task=problem_statement,
                          env={"SKIM_SERVER": "http://127.0.0.1:8000", "SKIM_SESSION": instance_id})
    agent = skim_agent(DefaultAgent)(model, env, **agent_config)
"""

import json
import os
import re
import urllib.request

try:
    from minisweagent.environments.local import LocalEnvironment
except ImportError:  # mini-swe-agent not installed: a stand-in with the same execute() contract, to try this file alone
    import subprocess

    class LocalEnvironment:
        def __init__(self, *, cwd="", env=None, timeout=30):
            self.cwd, self.env, self.timeout = cwd, env or {}, timeout

        def execute(self, action, cwd="", *, timeout=None):  # 2.x passes {"command": ...}, 1.x the command
            command = action.get("command", "") if isinstance(action, dict) else action
            r = subprocess.run(command, shell=True, text=True, cwd=cwd or self.cwd or os.getcwd(), env=os.environ | self.env,
                               timeout=timeout or self.timeout, encoding="utf-8", errors="replace",
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
            return {"output": r.stdout, "returncode": r.returncode}


class SkimEnvironment(LocalEnvironment):
    def __init__(self, *, skim_url="http://127.0.0.1:8000", session="", task="", **kwargs):
        super().__init__(**kwargs)
        self.skim_url = skim_url.rstrip("/")
        self.session = session  # one id per run: repeated commands fold against their previous run
        self.task = task
        self.thought = ""  # the THOUGHT of the step being executed (skim_agent sets it)

    def execute(self, command, cwd="", *, timeout=None):
        result = super().execute(command, cwd, timeout=timeout)
        text = command.get("command", "") if isinstance(command, dict) else command
        result["output"] = self.prune(result["output"], text, result.get("returncode"))
        return result

    def prune(self, output, command, returncode=None):
        # outputLimit: mini-swe-agent shows an output over 10,000 characters as its head and tail;
        # the lines it cuts are not remembered as shown
        body = {"code": output, "command": command, "query": self.thought, "task": self.task,
                "outputLimit": "mini-swe-agent"}
        if self.session:
            body["session"] = self.session
        if isinstance(returncode, int):
            body["exitCode"] = returncode
        request = urllib.request.Request(self.skim_url + "/v1/prune", data=json.dumps(body).encode(),
                                         headers={"content-type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=30) as response:
                return json.load(response)["text"]
        except Exception:  # skim down, or the request refused: the output as it was
            return output


def thought_of(message):
    """The THOUGHT of an assistant message: its text before the first code block."""
    return re.sub(r"^\s*THOUGHT:\s*", "", message.split("```")[0]).strip()


def skim_agent(agent_class):
    """The agent class, handing each step's THOUGHT to the environment before its commands run."""

    class SkimAgent(agent_class):
        def execute_actions(self, message):  # mini-swe-agent 2.x: a model message and its actions
            self.env.thought = thought_of(message.get("content") or "")
            return super().execute_actions(message)

        def execute_action(self, action):  # mini-swe-agent 1.x: one parsed action
            self.env.thought = thought_of(action.get("content") or "")
            return super().execute_action(action)

    return SkimAgent
