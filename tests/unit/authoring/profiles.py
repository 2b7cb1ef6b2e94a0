"""A learner's profile the offline generator writes for (as get_user_profile returns it)."""

ML_ENGINEER = {
    "user_id": "3f2b8c1e-7a4d-4e29-9b6f-1c5d8e2a7b40",
    "self_level": "intermediate",
    "years_experience": 6,
    "job_role": "ML Engineer",
    "duty": "Builds models",
    "interests": ["LLM"],
    "previous_score": 60,
}
