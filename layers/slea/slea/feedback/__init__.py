"""What a learner is shown after an answer: the explanation in parts and in prose, the next
steps, the references (only recorded sources), and the offline explainer."""
