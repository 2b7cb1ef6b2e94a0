"""slea: the shared layer of slea-ssem serverless (contracts, data access, tool logic).

Deliberately empty: each handler imports only the submodules it needs, to keep cold starts cheap.
"""
