-- One database per service, created when the PostgreSQL volume is first initialised.
CREATE DATABASE orderly_gateway;
CREATE DATABASE orderly_orders;
CREATE DATABASE orderly_catalog;
CREATE DATABASE orderly_payments;
CREATE DATABASE orderly_notifications;
