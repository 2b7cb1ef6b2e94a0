"""Every benchmark of the repository, in one process run, printed as JSON (`make bench`)."""

import json
import os
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
os.environ.setdefault("POWERTOOLS_LOG_LEVEL", "ERROR")

import aws_calls
import calibration_scale
import cat_simulation
import cold_import
import grading_agreement
import grading_attacks
import item_quality
import llm_calls
import local_answers
import mcp_server
import mode1_round
import mode2_answers
import near_duplicates
import pending_grades
import progress
import retry_path
import template_search


def main() -> None:
    progress.report_progress()  # each benchmark's name and time on stderr
    results = {
        "aws_calls_per_request": aws_calls.measure(),
        "tool2_items_read_1k_vs_50k": template_search.measure(1_000, 50_000),
        "llm_calls_one_round_of_5": llm_calls.measure(5),
        "mode1_round": mode1_round.measure(10),
        "mode2_100_answers_to_one_mc_question": mode2_answers.measure(100),
        "grading_agreement": grading_agreement.measure(),
        "grading_attacks_en_ko": grading_attacks.measure(),
        "tool5_retry_path_1000_questions": retry_path.measure(1000, write_failure_rate=0.2, duplicate_rate=0.1),
        "cold_import_ratio_to_boto3_plus_client": cold_import.measure(runs=21),
        "tool4_batch_near_duplicates": near_duplicates.measure(),
        "offline_item_quality": item_quality.measure(),
        "mcp_server_warm": mcp_server.measure(200),
        "calibration_refit": calibration_scale.measure(),
        "cat_simulation": cat_simulation.measure(),
        "local_stack_10k_answers": local_answers.measure(10_000),
        "pending_grades_before_vs_after_review": pending_grades.measure(200),
    }
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
