"""Data access: the only code that knows DynamoDB's key design and wire format."""
