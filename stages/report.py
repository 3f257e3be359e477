"""report: the static report site (report/) and the calibration plot rows, from every split's tables
and every exam's (sideways.report.inputs.exam_files says where an exam's tables are)."""

from sideways.artifacts import paths
from sideways.artifacts.failures import read_failures
from sideways.artifacts.io import write_json
from sideways.config.params import load_params
from sideways.core import stage
from sideways.report.build import build_report
from sideways.report.inputs import input_files, read_exams, read_split
from sideways.report.provenance import report_header
from sideways.report.site import site_files, write_site


def main() -> None:
    args = stage.arguments()
    params = load_params(args.params)
    header = report_header(args.params, input_files(params))
    exams = read_exams(params, paths.REPORT)  # unchanged reply files are taken from the last report
    report = build_report({s: read_split(params, s) for s in params.splits}, params, header, exams,
                          failed=read_failures())
    for split, data in report.summary["splits"].items():
        write_json(paths.calibration_plot(split), data["analytics"]["calibration"])
    write_site(site_files(report), paths.REPORT)


if __name__ == "__main__":
    stage.run(main)
