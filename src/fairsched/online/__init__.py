"""The online multi-organization model of Skowron & Rzadca (SPAA'13, PPAM'13)."""
