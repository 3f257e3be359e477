"""check: the pipeline's first stage. params.yaml checked as `sideways check` does, before any stage runs.

DVC deletes a stage's outputs before it runs the stage's command, so a stage that refuses its
params leaves its outputs gone. Every other stage runs after this one (scrape and exam_items,
the two roots of the graph, depend on its output), and DVC stops at the first stage that fails:
a mistake in params.yaml or models.yaml stops the run here, with one line naming the key, and
every output stays in place (docs/design.md, "Params are checked first"); the labels, which only
annotate reads, are left to `sideways check` (config.preflight.STAGE_CHECKS). Its output holds no
number of the params, so a params edit that passes reruns nothing downstream because of it.
"""

from sideways.artifacts import paths
from sideways.artifacts.io import atomic_write_bytes
from sideways.config.preflight import STAGE_CHECKS, check_project
from sideways.core import stage

CHECKED = b"params.yaml passed `sideways check`\n"


def main() -> None:
    check_project(stage.arguments().params, STAGE_CHECKS)
    atomic_write_bytes(paths.CHECKED, CHECKED)


if __name__ == "__main__":
    stage.run(main)
