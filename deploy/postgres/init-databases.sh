#!/bin/sh
# Run once by PostgreSQL's image when its volume is new: a user and a database per service,
# each user owning its database alone, with the passwords from the environment.
set -eu
for service in gateway orders catalog payments notifications; do
    variable="ORDERLY_$(echo "$service" | tr '[:lower:]' '[:upper:]')_DB_PASSWORD"
    printenv "$variable" >/dev/null || { echo "init-databases: $variable is not set" >&2; exit 1; }
    # psql reads the password from the environment itself, so it is on no command line.
    psql -v ON_ERROR_STOP=1 --username "$POSTGRES_USER" --dbname "$POSTGRES_DB" \
        -v name="orderly_$service" -v variable="$variable" <<'SQL'
\getenv password :variable
CREATE ROLE :"name" LOGIN PASSWORD :'password';
CREATE DATABASE :"name" OWNER :"name";
REVOKE ALL ON DATABASE :"name" FROM PUBLIC;
SQL
done
