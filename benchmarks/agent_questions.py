"""Agent questions: is the answer an agent reads right? (``python3 benchmarks/agent_questions.py``)

Each corpus in benchmarks/agent_corpora/ is a few months of one person's or team's memories,
written with its questions by colleagues who saw neither the ranking code nor any answer. The
memories are saved in date order the way an agent saves them (``save`` with the date; corrections
with ``replaces`` where the writer said the agent would use it; long documents through
``ingest_text`` like ``ihmt ingest``). When ``save`` links no memory and lists candidates
instead, the agent does what the usage rules tell it (templates/memory-instructions.md): it
picks the memory it corrects among those listed, when that memory is listed, and calls
``mark_outdated`` (``--no-picks``: it never does, as every run before the thirty-sixth
session measured). Then every question goes through ``search`` and is scored
on exactly what the MCP ``search_memory`` tool returns: ``render.compact_answer``.

Columns, per question kind (see the corpus format in agent_corpora/FORMAT.md):
- best: BEST is a gold memory (for every kind but history: not flagged OUTDATED), the gold
  being the writers' (a memory corrected later on one point may still answer another);
- top3: a gold memory among the first three hits (or among the AMBIGUOUS candidates);
- seen: the expected answer text is visible in the compact answer;
- falseNF: NOT FOUND although a memory answers; NF ok: NOT FOUND on an unanswerable question;
- spurAMB: AMBIGUOUS on a question that has one answer; stale: a memory a later one corrects is BEST and is not gold;
- AMB flagged: on ambiguous questions, AMBIGUOUS listing at least two of the memories that
  answer differently; clue: the clue's memory as BEST when the question is asked again with it;
- tokens: size of the compact answer (median).
A flat BM25 over whole memories (same terms, top 1) runs beside it as the baseline.

Corpora are frozen: ``--set dev`` are the ones the ranking may be tuned on; ``--set heldout``
are reported at first sight and never tuned to (once looked at, a set is reported as seen);
``--set fresh`` is a later blind corpus, frozen before its first run. Results go to RESULTS.md with ``--write``.
``--jobs 2`` answers two corpora at once, each in its own process: the same rows and report
in about half the time on two cores.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path

from common import ROOT, FlatBM25, in_processes, machine, write_section

CORPORA = ROOT / "benchmarks" / "agent_corpora"
SETS = {
    "dev": ["rutafleet", "navarro"],
    "heldout": ["cobalto", "herrera"],
    # written blind on 2026-12-01 after the held-out pair had been looked at; first run the same day
    "fresh": ["quiroga"],
    # two more written blind on 2026-12-02 (frozen before their first run, which is reported
    # as it came in the "Agent questions: answer shapes" section of RESULTS.md)
    "blind2": ["vidal", "okafor"],
    # two more written blind on 2026-12-02 by helpers who saw only FORMAT.md, frozen (committed)
    # before their first run; the first run is reported as it came in RESULTS.md
    "blind3": ["lindqvist", "etxeberria"],
    # and two more the same day, frozen before their first run, which measured the final code
    # of that session (blind3's first run came before its last two fixes)
    "blind4": ["villarreal", "sepulveda"],
    # two more written blind on 2026-12-02 (helpers saw only FORMAT.md), committed before
    # their first run, which measures the vocabulary lexicon of that session at first sight
    "blind5": ["ortiz", "mwangi"],
    # written blind on 2026-12-02 (fourth session; helpers saw only FORMAT.md and were asked
    # for at least four English questions on Spanish memories), committed before their first
    # run, which measures that session's code at first sight
    "blind6": ["valdes", "restrepo"],
    # written blind on 2026-12-02 (fifth session; helpers saw only FORMAT.md): a newsroom's
    # web team and a warehouse-robot startup, committed before their first run, which
    # measures that session's code (and the code it started from) at first sight
    "blind7": ["salaberry", "aranguren"],
    # and two more the same session, committed before their first run, which measures the
    # code of that session after blind7 had become seen: an e-learning backend team in
    # Medellín and a legal-tech SaaS in Madrid
    "blind8": ["zuluaga", "benitez"],
    # and two more at the end of that session, committed before their first run, which
    # measures the session's final code: a city museum's digital team in Santiago de Chile
    # and a freelance developer in Quito (an open-source CLI, a client app, a home lab)
    "blind9": ["ibarra", "castellanos"],
    # written blind on 2026-12-02 (sixth session; helpers saw only FORMAT.md), committed before
    # their first run, which measures that session's starting code and its code of the moment:
    # an indie game studio, a university bioinformatics lab, a city's open-data portal team
    "blind10": ["ortuzar", "lizarraga", "montoya"],
    # and two more the same session, committed before their first run, which measures the
    # session's final code (and the code it started from): an olive-oil cooperative's IT team
    # and a credit union's mobile team
    "blind11": ["echeverria", "galindo"],
    # written blind on 2026-12-02 (seventh session; helpers saw only FORMAT.md), committed
    # before their first run, which measures that session's final code and the code it
    # started from: a university HPC cluster's sysadmin, a marketplace's search team, a
    # freelance developer with three clients
    "blind12": ["quiroga-hpc", "salcedo", "villalba"],
    # written blind on 2026-12-02 (eighth session; helpers saw only FORMAT.md), committed
    # before their first run, which measures that session's starting code and its final
    # code: a fitness app's mobile team, an insurer's data engineer, an agritech firmware
    # engineer
    "blind13": ["goikoetxea", "adeyemi", "pellegrini"],
    # and three more the same session, committed before their first run, which measures the
    # session's final code (with the ordering trees refitted on blind13 too) and the code it
    # started from: an online bookshop's SRE, a climate-modelling PhD student, a web agency's
    # technical lead
    "blind14": ["papadakis", "ghazarian", "mamani"],
    # ninth session: three more, committed before their first run, which measures the code
    # the session started from and its final code (the ordering trees are not fitted on
    # them): a game studio's build and release engineer, a hospital's integration
    # developer, a fintech's two-person payments team
    "blind15": ["tresguerras", "vrancken", "kettleborough"],
    # tenth session: three more, committed before their first run, which measures the code
    # the session started from and its final code (the ordering trees are not fitted on
    # them): a telecom operator's network-automation engineer in Montevideo, an e-bike
    # motor-controller firmware team, a public-library consortium's web and systems team
    "blind16": ["bentancor", "arrizabalaga", "bustamante"],
    # thirteenth session: three more, committed before their first run, which measures the
    # code the session started from (33de7d6) and its code at that point and at the end: a
    # small Chilean university's Moodle IT team, a veterinary-clinic SaaS startup in Córdoba,
    # an e-bike maker's firmware team in Barcelona
    "blind17": ["rojas", "huellas", "brisa"],
    # fourteenth session (2026-12-03), written blind (helpers saw only FORMAT.md and a one-line
    # setting), committed before their first run, which measures the code the session started
    # from (3ea2ff7) and its final code: a logistics startup's data team in Lima, a solo indie
    # mobile game developer in Valencia, a water utility's SCADA team in Navarra
    "blind18": ["rutakay", "farolillo", "aguasnavarra"],
    # fifteenth session (2026-12-03), written blind the same way and committed before their
    # first run, which measures the code the session started from (a20e626) and its final
    # code: a freelance mobile developer in Bogotá with three clients, a genomics lab's
    # research-computing team in Porto, an online ceramics shop's platform team in Mexico City
    "blind19": ["bogotamovil", "portogenoma", "barrovivo"],
    # sixteenth session (2026-12-03), written blind the same way and committed before their
    # first run, which measures the code the session started from (ff28b78) and its final
    # code: a three-person indie game studio in Montevideo, a water utility's operational-
    # technology data team in Rosario, an open-source Rust maintainer in Lisbon
    "blind20": ["montevideojuegos", "rosarioagua", "lisboarust"],
    # seventeenth session (2026-12-03), written blind the same way and committed before their
    # first run, which measures the code the session started from (f0a705d) and its final
    # code: a food-delivery startup's two-person platform team in Barcelona, a solo
    # climate-data developer in Quito with an HPC allocation, a Guadalajara agency building a
    # vet-clinic chain's Flutter app and Django backend
    "blind21": ["tapita", "quitoclima", "patasana"],
    # eighteenth session (2026-12-04), written blind the same way and committed before their
    # first run, which measures the code the session started from (1785df1) and its final
    # code: a solo data scientist in Santiago de Chile consulting for two copper miners (two
    # people named Diego), a Valencia university robotics lab's shared memory (two people
    # named Pablo), a Buenos Aires e-commerce checkout and payments team (two Sofías)
    "blind22": ["bestia", "irislab", "compralia"],
    # nineteenth session (2026-12-04), written blind the same way and committed before their
    # first run, which measures the code the session started from (d37796d) and its final
    # code: a Lima clinic network's two-person HL7/FHIR integration team (two people named
    # Carlos), a Mexico City freelance audio-plugin developer working with a contractor of her
    # own first name (two Andreas), a Madrid insurer's claims-fraud ML team (two Javiers)
    "blind23": ["sangabriel", "cenote", "siniestros"],
    # twentieth session (2026-12-04), written blind the same way and committed before their
    # first run, which measures the code the session started from (5447cfd) and its final
    # code: a Valencia agritech team's LoRaWAN soil sensors and citrus-irrigation service (two
    # people named Lucía), a Montréal freelancer's Rust static-site generator and a Guatemala
    # coffee cooperative's inventory app (two Pablos), a Seville online-courses company's
    # video transcoding pipeline (two Rocíos)
    "blind24": ["azahar", "tostadero", "fotograma"],
    # twenty-third session (2026-12-04), written blind the same way and committed before their
    # first run, which measures the code the session started from (88e2923) and its final
    # code: a two-person indie studio in Cork selling a Rust audio plugin (some notes in
    # Spanish), a Monterrey grocery chain's data-engineering team (much of it in Spanish), a
    # Halifax marine-ecology lab's seal-tracking web app (a Chilean postdoc's Spanish notes)
    "blind25": ["kestrel", "almacenes", "tideline"],
    # twenty-fourth session (2026-12-04), written blind the same way and committed before their
    # first run, which measures the search the session started from (cf6aaf9; the session
    # changed only capture): a Santiago solar installer's field-service app (two Felipes, some
    # Chilean Spanish), a Wellington ferry operator's data team (two Sams, a Mexican
    # engineer's Spanish notes), a Manises ceramics shop run by two siblings (two Vicentes,
    # a third of it in Spanish)
    "blind26": ["lumbre", "harbourline", "tinaja"],
    # written blind in the twenty-fifth session (first sight before that session changed
    # anything in search): a Bogotá coffee exporter's lot-tracking app (two Andrés, some
    # Colombian Spanish), a Glasgow game studio's build and crash pipeline (two Rorys, a
    # Valencia QA contractor's Spanish notes), a Nairobi mobile-money reconciliation service
    # (two Wanjirus, a Mexican contractor's Spanish notes)
    "blind27": ["cafetal", "kelpie", "mpesaflow"],
    # written blind in the twenty-fifth session with French as the second language (the
    # kind "french" in place of "spanish"): a Lyon start-up's bike-courier dispatch app (two
    # Juliens), a Québec City open-data team's publishing pipeline (two Marie-Èves)
    "blind28": ["velocourse", "donneesqc"],
    # written blind in the twenty-sixth session: a Porto/Madrid team wiring hospital lab
    # analysers to a lab information system (two Inês), a Buenos Aires solo developer's
    # mobile-game backend (two Martíns), an Edinburgh university GPU cluster (two Fionas)
    "blind29": ["labfeed", "tangoplay", "gpuhall"],
    # written blind in the twenty-seventh session: a Mexico City fintech's payments
    # reconciliation service (two Alejandras), a Spanish-Dutch wind-farm operator's SCADA
    # telemetry pipeline (two Pablos), a Valencia freelancer moving four bookshops from
    # WooCommerce to a headless shop (two Carmens)
    "blind30": ["cuadrante", "aerogen", "librovalencia"],
    # written blind in the twenty-eighth session: a Chilean copper mine's haul-truck
    # telematics platform (two Matías), a Barcelona biotech lab's sample tracking and LIMS
    # integration (two Núrias), a Buenos Aires solo developer's restaurant-booking SaaS (two
    # Florencias)
    "blind31": ["faenatrack", "muestralab", "mesalibre"],
    # written blind in the twenty-ninth session: a Valencia contractor's offshore wind-farm
    # SCADA data pipeline (two Ingrids), a Mexico City fintech's React Native remittance app
    # (two Rodrigos), a UK food bank's volunteer-rota app with a Málaga co-maintainer (two
    # Cármenes)
    "blind32": ["turbinas", "remesa", "voluntariado"],
    # written blind in the thirtieth session: a Chilean observatory's telescope scheduling and
    # data-reduction pipeline (two Pablos), a Barcelona genomics core's LIMS (two Martas), a
    # Madrid indie studio's Unity build pipeline for PC and Switch (two Álexes)
    "blind33": ["observatorio", "lims", "estudio"],
    # written blind in the thirty-first session: a Zaragoza railway's signalling-maintenance
    # scheduler (two Javiers), a Mendoza winery's shop and cellar inventory (two Lucías), a
    # Dublin fintech's card-settlement reconciliation with a Spanish colleague (two Seáns)
    "blind34": ["ferroviario", "vinoteca", "reconcile"],
    # written blind in the thirty-second session: a Cusco alpaca-textile cooperative's order
    # and inventory app (two Rosas, a quarter in Peruvian Spanish), a Seville tram operator's
    # depot-maintenance and spare-parts service (two Manueles, a third in Spanish), a
    # Montevideo digital newspaper's headless CMS and paywall (two Lucías, some Rioplatense
    # Spanish)
    "blind35": ["telar", "tranvia", "redaccion"],
    # written blind in the thirty-third session: a Valencia citrus exporter's cold-chain
    # tracking and shipping app (two Vicentes, a fifth in Spanish), a Guadalajara theatre
    # chain's ticketing backend moving from PHP to Go (two Alejandras, a fifth in Mexican
    # Spanish), a Barcelona maintainer's open-source Python tiling library with a consulting
    # client (two Ingrids, a fifth in Spanish)
    "blind36": ["cosecha", "taquilla", "geotiles"],
    # written blind in the thirty-fourth session: a Vigo shellfish cooperative's traceability
    # app moving from a VPS to managed Kubernetes (two Nurias, a fifth in Spanish), a
    # Montevideo ride-hailing driver-payout platform team moving from Jenkins to GitHub Actions
    # (two Martíns, a fifth in Spanish), an Edinburgh botanical garden digitising its herbarium
    # with an Argentinian visiting curator (two Fionas, a fifth in Spanish)
    "blind37": ["ostra", "relevo", "herbarium"],
    # written blind in the thirty-fifth session: a Granada quarry company's fleet-maintenance
    # app (Flutter, Go; two Pilars, a fifth in Spanish), a Nairobi agritech team's
    # crop-insurance claims pipeline (Airflow, BigQuery, M-Pesa payouts; two Wanjirus, a
    # contractor from Lima writing in Spanish), a Buenos Aires community radio's archive and
    # streaming (Icecast, Liquidsoap, Phoenix; two Lucías, a fifth in Spanish)
    "blind38": ["cantera", "seedbank", "radioteca"],
    # written blind in the thirty-sixth session: a Medellín fashion brand moving its shop from
    # Shopify to Next.js and Medusa (two Camilas, a fifth in Colombian Spanish), a Rotterdam
    # port's container-tracking pipeline (Kafka, Flink, TimescaleDB; two Daans, a Chilean
    # engineer writing Spanish), a Barcelona hospital's radiology integration (Orthanc,
    # a Python worklist, a Vue portal; two Montses, a fifth in Spanish)
    "blind39": ["pasarela", "kadeport", "radiologia"],
    # written blind in the thirty-seventh session: a Valencia theatre company's ticketing and
    # box office (Laravel, MySQL to PostgreSQL, Redsys; two Pilars, a fifth in Spanish), a
    # Danish wind-farm operator's turbine telemetry (Rust, InfluxDB to QuestDB, on-premises
    # Kubernetes; two Mettes, an Argentine contractor writing Spanish), a Guadalajara grocery
    # delivery start-up (React Native, Go, GKE; two Alejandros, a bilingual team)
    "blind40": ["tramoia", "gridwatch", "mercadito"],
    # written blind in the thirty-eighth session: a Bergen salmon-farm monitoring team
    # (FastAPI, TimescaleDB, Azure VMs to AKS; two Ingrids, a Chilean contractor writing
    # Spanish), a Jaén olive-oil cooperative's traceability app (Django, PostgreSQL, Heroku to
    # Hetzner; two Manuels, a bilingual solo developer), a Lima QR-payments fintech's platform
    # team (Spring Boot, Kafka to Amazon MSK, EKS; two Rosas, a bilingual team)
    "blind41": ["fjordfarm", "olivar", "kioscopay"],
    # written blind in the thirty-ninth session: lending for Valparaíso's municipal libraries
    # (Laravel, MySQL, DigitalOcean to AWS; two Camilas, a French volunteer), rooftop-solar
    # monitoring for a Freiburg cooperative (Rust, InfluxDB to QuestDB, Hetzner bare metal to
    # k3s; two people named Jonas, a Porto contractor writing Portuguese), a Nairobi tutoring marketplace
    # (NestJS, MongoDB to PostgreSQL, Railway to Cloud Run; two Wanjirus, a Madrid designer
    # writing Spanish)
    "blind42": ["bibliolend", "solarmesh", "tutorcall"],
    # written blind in the fortieth session: a Rotterdam freight-forwarding dashboard (Kotlin,
    # Spring Boot, Oracle to PostgreSQL, VMware to Azure AKS; two Sannes, a Valencia QA engineer
    # writing Spanish), a Hanoi clinic-queue app (Flutter, Supabase to self-hosted PostgreSQL
    # and Go, Vercel to a Singapore VPS; two Minhs, a Córdoba contractor writing Spanish), frost
    # alarms for a Wenatchee orchard cooperative (Raspberry Pi gateways, LoRaWAN, SQLite to
    # TimescaleDB, AWS IoT Core to Mosquitto; two growers named Maria, a crew lead writing Spanish)
    "blind43": ["freightdock", "clinicqueue", "orchardiot"],
    # written blind in the forty-first session: loans and holds for Tartu's municipal libraries
    # (Python, FastAPI, MySQL to PostgreSQL, an on-premise rack to Hetzner Cloud; two Kadris, a
    # Montevideo contractor writing Spanish), offshore wind-turbine maintenance scheduling in
    # Aberdeen (C#, .NET 8, Blazor, SQL Server to Azure SQL, IIS to Azure App Service; two
    # Callums, a Bilbao technician lead writing Spanish), a Bristol solo developer's meal-planning
    # app (React Native, Expo, Firebase to Supabase, a home NAS and Tailscale; two Priyas, a Lima
    # co-founder writing Spanish)
    "blind44": ["tartulibrary", "windcrew", "mealnest"],
    # written blind in the forty-second session: a Nairobi fintech team reconciling mobile-money
    # payouts (Go, Cassandra to ScyllaDB, bare metal to GKE; two Wanjirus, a Madrid consultant
    # writing Spanish), a Helsinki indie studio's co-op game backend (Elixir, Phoenix, Redis to
    # Valkey, DigitalOcean to Hetzner; two Mikkos, a Buenos Aires artist writing Spanish), a
    # Kyoto protein-folding lab's pipeline (Julia and Python on Slurm, NFS to Ceph, spreadsheets
    # to a Django app; two Kenjis, a Bogotá postdoc writing Spanish)
    "blind45": ["reconhub", "saunaforge", "kyotolab"],
    # written blind in the forty-third session: a Rotterdam port-logistics startup tracking
    # container dwell times (TypeScript, NestJS, MongoDB to PostgreSQL, Heroku to AWS ECS; two
    # people named Daan, a Lima data analyst writing Spanish), a Tallinn small-business lending
    # API (Kotlin, Spring Boot, Kafka, MySQL 8 to 8.4, VMware to Azure AKS; two Liises, a
    # Montevideo contractor writing Spanish), a Zurich glaciology group's imagery pipeline
    # (xarray and Dask, R, HPC, MinIO to Switch's object store; two Andreas, a Punta Arenas
    # field technician writing Spanish)
    "blind46": ["quayside", "tallinnbank", "glaciarlab"],
    # written blind in the forty-fourth session: a Krakow game-audio middleware company's
    # build-and-tools team (C++ and C#, Perforce to Git LFS, Jenkins to TeamCity; two people
    # named Marta, a Buenos Aires sound designer writing Spanish), a Vancouver air-quality
    # nonprofit's wildfire-smoke data platform (Airflow, TimescaleDB, low-cost sensors, Google
    # Cloud to a university cluster; two Sams, a Santiago volunteer writing Spanish), a Seville
    # agency's flamenco-school booking app (Laravel, Vue, Stripe to Redsys, shared hosting to
    # a Hetzner VPS; two Lolas, many memories in Spanish)
    "blind47": ["krakaudio", "smokewatch", "flamencoweb"],
    # written blind in the forty-fifth session: a Reykjavik geothermal plant's SCADA monitoring
    # and alerting team (Python, InfluxDB to TimescaleDB, Grafana, Modbus gateways, on-premises
    # servers partly to Azure; two people named Gunnar, a Bilbao contractor writing Spanish), a
    # Montevideo bus company's dispatch and ticketing team (Spring Boot, Oracle to PostgreSQL,
    # Android validators, a data centre to Azure; two Martíns, much Spanish), a two-founder
    # Toronto podcast-hosting service (Elixir and Phoenix, S3 to Cloudflare R2, Heroku to
    # Render; two Priyas, a Guadalajara support contractor writing Spanish)
    "blind48": ["geovolt", "montebus", "podnest"],
    # written blind in the forty-sixth session: a Halifax marine weather-buoy data platform
    # team (Rust ingest services, Kafka, ClickHouse, a colo rack partly to AWS; two Connors, a
    # Valparaíso contractor writing Spanish), a Madrid fintech's corporate expense-card backend
    # team (Kotlin, PostgreSQL, Kafka, Google Cloud to AWS; two Lucías, much Spanish), a
    # Melbourne theatre-ticketing startup (Rails, Sidekiq, MySQL to PostgreSQL, Heroku to
    # Fly.io, Stripe; two Ngozis, a Bogotá contractor writing Spanish)
    "blind49": ["tidelog", "cartera", "stagekit"],
    # written blind in the forty-seventh session: a Vigo fish-auction bidding platform team
    # (Go, NATS, PostgreSQL, an on-premises rack at the port to Hetzner; two Martas, notes in
    # Spanish), a Welsh sheep-farming co-operative's livestock traceability system (Django,
    # PostGIS, Celery, Azure to OVHcloud; two Rhyses, a Lisbon contractor writing Portuguese),
    # a Santiago de Chile EV-charging network backend (Elixir/Phoenix, TimescaleDB, RabbitMQ,
    # Google Cloud, billing moved in-house; two Camilas, much Chilean Spanish)
    "blind50": ["lonjadigital", "sheepdip", "metrocarga"],
    # written blind in the forty-eighth session: a Guadalajara tortilla distributor's route
    # planning and ordering service (FastAPI, Redis, OR-Tools, PostgreSQL, Azure to Fly.io; two
    # Alejandros, many notes in Mexican Spanish), an Austrian ski resort's lift-ticketing and
    # gate system (Java 17, Spring Boot, Kafka, Oracle to PostgreSQL, on-premises to AWS
    # Frankfurt; two Stefans, German words, an Argentinian contractor writing Spanish), a
    # Montreal freelance data engineer's two clients (dbt, Snowflake, Airflow; BigQuery,
    # Dagster), laptop and home server (two Juliens, notes in Spanish, client quotes in French)
    "blind51": ["tortiruta", "bergbahn", "quaisdata"],
    # written blind in the forty-ninth session: a Nairobi mobile-money agent network's
    # platform team (Go, gRPC, Kafka, M-Pesa, a Hetzner rack moved to AWS af-south-1; two
    # Wanjirus, a Colombian tech lead's notes in Spanish, Swahili words), a Lisbon indie game
    # studio's build and release pipeline (Unity, Jenkins to GitHub Actions with Mac runners,
    # Steam and console certification; two Joaos, a Galician producer's Spanish notes), a
    # Santiago de Chile public hospital's pharmacy inventory and dispensing system (Quarkus,
    # HL7 and FHIR, barcode scanners, on-premises to Google Cloud; two Camilas, Chilean Spanish)
    "blind52": ["pesapoint", "farolgames", "botiquin"],
    # written blind in the fiftieth session: a Warsaw e-grocery company's data platform team
    # (Snowflake, dbt, Airflow, Kafka Connect, Looker; Redshift moved to Snowflake; two Piotrs,
    # a Guadalajara contractor's notes in Spanish), a Sierra Nevada ski resort's IT (lift
    # passes, online booking, snow report; Laravel to Symfony, MySQL, RFID turnstiles,
    # on-premises to OVHcloud; two Lucias, mostly Spanish), a Montreal bike-share's operations
    # software (Kotlin/Spring Boot rebalancing planner, PostGIS, a van crews' dispatch app,
    # Google Cloud to a Quebec colocation; two Alexandres, a Chilean developer's Spanish notes)
    "blind53": ["vistulahub", "nevadaski", "velomtl"],
    # written blind in the fifty-first session: a Reykjavik geothermal district-heating
    # utility's software team (an OSIsoft PI historian feeding a C#/.NET 8 metering service,
    # billing integration, SQL Server moved to PostgreSQL, Azure moved to an on-premises
    # Proxmox cluster; two Gunnars, a Peruvian contractor's Spanish notes, Icelandic words), a
    # Buenos Aires fintech's card-issuing backend (Elixir/Phoenix, PostgreSQL, RabbitMQ
    # replaced by Kafka, AWS sa-east-1, PCI DSS audits, an ISO 8583 gateway; two Martins,
    # mostly Argentine Spanish), a Cape Town marine institute's ocean-buoy data pipeline and
    # portal (xarray, NetCDF to Zarr on S3, Airflow replaced by Prefect, Vue, satellite modem
    # telemetry, a shared GPU workstation; two Thandis, a Canary Islands collaborator's
    # Spanish notes)
    "blind54": ["hitaveita", "tarjetazo", "boyalab"],
    # written blind in the fifty-second session: an Auckland forestry carbon-credit monitoring
    # team (Django and PostGIS, satellite imagery pipelines, Heroku moved to AWS ECS and RDS,
    # Celery replaced by Step Functions; two Arohas, a Chilean contractor's Spanish notes), an
    # Oaxaca mezcal export compliance startup (a Laravel monolith split into Go services,
    # MySQL to PostgreSQL, DigitalOcean to Cloud Run, CFDI invoicing with the SAT, export
    # certificates; two Guadalupes, mostly Mexican Spanish with a US distributor's English
    # notes), a Tromso team running shore-power charging for electric ferries (Kotlin/Ktor,
    # TimescaleDB, MQTT from charger PLCs, OCPP, on-premises Kubernetes moved to GKE, Grafana to
    # Datadog and back; two Ingrids, a Uruguayan collaborator's Spanish notes)
    "blind55": ["kauritrack", "mezcalink", "nordferje"],
    # written blind in the fifty-third session: a Nairobi agritech team's crop-insurance
    # platform paid out over M-Pesa (FastAPI, PostgreSQL, Celery replaced by Temporal, GCP moved
    # to AWS af-south-1, satellite rainfall indices, a USSD channel; two Wanjirus, a Colombian
    # consultant's Spanish notes), a Montevideo public-library network's catalogue and loans
    # system (a customized Koha in Perl, a new Vue front end, MariaDB, on-premises VMs moved to
    # a government cloud, RFID kiosks, nightly MARC imports; two Lucías, mostly Rioplatense
    # Spanish), a Glasgow indie game studio's build farm and live-ops backend (Unity, C#
    # services, Jenkins moved to GitHub Actions, PlayFab replaced by an in-house Go service,
    # console certification; two Callums, a Galician technical artist's Spanish notes)
    "blind56": ["mazaocover", "bibliored", "thistleops"],
    # written blind in the fifty-fourth session: a Quito volcano observatory's seismic and gas
    # monitoring pipeline (SeisComP, ObsPy, PostgreSQL, Kafka replaced by NATS, on-premises
    # servers moved to a university research cloud, a public alert page; two Andreas, mostly
    # Ecuadorian Spanish with a US collaborator's English notes), a Melbourne tram operator's
    # passenger-information displays (TypeScript/Node, GTFS and GTFS-Realtime, Redis, a legacy
    # Delphi timetable scheduler being retired, Azure moved to AWS, LED sign controllers on a
    # serial protocol; two Liams, an Argentine contractor's Spanish notes), a Seville flamenco
    # festival's ticketing and volunteer scheduling (Rails, PostgreSQL, Sidekiq, Heroku moved to
    # Render, Stripe replaced by Redsys, QR tickets at the gates, a WhatsApp volunteer roster;
    # two Rocíos, mostly Andalusian Spanish with a London promoter's English)
    "blind57": ["volcanquito", "tramsigns", "feriatix"],
    # blind58, written by three more helpers from a one-line setting each: a two-person Porto
    # team's online tutoring marketplace for Portuguese-speaking secondary-school students
    # (payments and video calls on a small Kubernetes cluster, a Montevideo contractor writing
    # in Spanish), a Valladolid public hospital pharmacy's inventory and unit-dose dispensing
    # software kept by a three-person in-house IT team (mostly English, some Spanish), a solo
    # developer's weather-station network for Marlborough vineyards (LoRaWAN gateways,
    # TimescaleDB, a React dashboard, frost alerts by SMS)
    "blind58": ["explicaporto", "farmaciahosp", "vinesensor"],
    # blind59, written by three more helpers from a one-line setting each: a Bilbao shipyard's
    # welding-robot maintenance and production-planning software kept by a four-person in-house
    # team (mostly Spanish, some Basque words, an English-speaking robot vendor's notes), a
    # Krakow-based remote team's podcast hosting platform (audio transcoding, RSS feeds,
    # dynamic ad insertion, a Go backend; English with Polish words and a Mexican designer's
    # Spanish notes), a small Guatemalan NGO's microloan tracking app for rural women's
    # cooperatives (an offline-first Android app, a Django backend, SMS repayment reminders;
    # mostly Guatemalan Spanish, a US donor's English notes)
    "blind59": ["astillerobot", "podkrakow", "microcredgt"],
}
SECTION = "Agent questions (benchmarks/agent_questions.py)"
ANSWERABLE_KINDS = (
    "exact",
    "paraphrase",
    "abbreviation",
    "present",
    "history",
    "spanish",
    "french",  # blind28 and later: the corpus's second language is French
    "long_document",
)
KIND_ORDER = ANSWERABLE_KINDS + ("ambiguous", "unanswerable")


def load_corpus(name: str) -> dict:
    return json.loads((CORPORA / f"{name}.json").read_text(encoding="utf-8"))


# what the `replaces` pointers of the corpora saved so far did: linked, candidates (and of
# those, the ones the agent picked), not_found
REPLACES_TALLY: dict[str, int] = defaultdict(int)


def build_store(
    corpus: dict, workdir: Path, semantic: bool, agent_picks: bool = True
) -> tuple[object, dict, dict]:
    """Save the corpus in date order; returns the memory, leaf id -> corpus id, and the
    corpus ids of memories that a later memory corrects. ``agent_picks``: a correction whose
    pointer lists candidates is linked to the memory it corrects when that one is listed,
    as the usage rules tell an agent to do."""
    from ihmt import IHMT

    memory = IHMT.initialize(workdir, semantic=True) if semantic else IHMT.initialize(workdir)
    owner: dict[str, str] = {}
    for item in sorted(corpus["memories"], key=lambda m: m["date"]):
        stamp = item["date"] if "T" in item["date"] else item["date"] + "T09:00:00"
        if item.get("kind") == "document":
            report = memory.ingest_text(
                item["content"],
                source=item.get("source") or f"{item['id']}.md",
                timestamp=stamp,
            )
            leaf_ids = report.leaf_ids
        else:
            report = memory.save(
                item["content"],
                replaces=item.get("replaces") or "",
                timestamp=stamp,
                allow_secrets=True,
            )
            leaf_ids = report.leaf_ids
            if item.get("replaces"):
                REPLACES_TALLY[report.replaces_status or "none"] += 1
                if agent_picks and report.replaces_status == "candidates" and leaf_ids:
                    _agent_picks(memory, report.candidates, owner, item.get("corrects"), leaf_ids)
        for leaf_id in leaf_ids:
            owner.setdefault(leaf_id, item["id"])
    memory.flush()
    corrected = {m["corrects"] for m in corpus["memories"] if m.get("corrects")}
    if semantic:
        memory.semantic.sync()
    return memory, owner, corrected


def _agent_picks(memory, candidates: list[dict], owner: dict, corrects, new_ids: list) -> None:
    """The agent's part of a correction: of the memories ``save`` listed, the one it meant."""
    meant = [c["id"] for c in candidates if corrects and owner.get(c["id"]) == corrects]
    if meant:
        memory.mark_outdated(meant[0], new_ids[0])
        REPLACES_TALLY["picked by the agent"] += 1


def flat_baseline(corpus: dict) -> FlatBM25:
    from ihmt.text.tokenize import term_counts

    flat = FlatBM25()
    for item in corpus["memories"]:
        flat.add(item["id"], term_counts(item["content"]))
    return flat


def visible(answer: str | None, text: str) -> bool:
    if not answer:
        return False
    return " ".join(answer.split()).casefold() in " ".join(text.split()).casefold()


def score_question(q: dict, memory, owner: dict, corrected: set, flat: FlatBM25) -> dict:
    from ihmt.render import compact_answer
    from ihmt.search.query import parse_query
    from ihmt.text.tokens import estimate_tokens

    gold = set(q.get("gold") or [])
    kind = q["kind"]
    started = time.perf_counter()
    result = memory.search(q["question"])
    elapsed = time.perf_counter() - started
    text = compact_answer(result)
    ranked = [owner.get(h.leaf_id, "?") for h in result.hits]
    best = result.best
    best_id = owner.get(best.leaf_id, "?") if best and not result.ambiguous else None
    row = {
        "id": q["id"],
        "kind": kind,
        "question": q["question"],
        "gold": sorted(gold),
        "verdict": "NOT FOUND" if result.not_found else "AMBIGUOUS" if result.ambiguous else "BEST",
        "best": best_id,
        "ranked": ranked[:5],
        "confidence": round(result.confidence, 3),
        "coverage": result.hits[0].coverage if result.hits else 0.0,
        "tokens": estimate_tokens(text),
        "seconds": elapsed,
        "text": text,
    }
    # the writers' gold decides: a memory corrected later on one point can still be the
    # answer on another (its SSH port after the VPS was resized); what must not happen is
    # the answer flagged OUTDATED, except when an earlier state was asked for
    row["best_ok"] = bool(best_id in gold and (kind == "history" or not best.outdated))
    pool = [owner.get(h.leaf_id, "?") for h in result.candidates] if result.ambiguous else ranked
    row["top3"] = bool(gold & set(pool[:3] if not result.ambiguous else pool))
    row["seen"] = visible(q.get("answer"), text)
    row["false_nf"] = bool(gold) and result.not_found
    row["nf_ok"] = not gold and result.not_found
    row["spurious_amb"] = kind != "ambiguous" and result.ambiguous
    row["stale"] = bool(best_id and best_id in corrected and best_id not in gold)
    if kind == "ambiguous":
        clue_gold = set(q.get("clue_gold") or [])
        flagged = result.ambiguous and len(gold & set(pool)) >= 2
        after = memory.search(q["question"], clue=q.get("clue") or "")
        after_text = compact_answer(after)
        after_best = owner.get(after.best.leaf_id) if after.best and not after.ambiguous else None
        row["amb_flagged"] = flagged
        row["clue_ok"] = bool(after_best in clue_gold and visible(q.get("clue_answer"), after_text))
        row["clue_text"] = after_text
    terms = parse_query(q["question"]).terms
    top = flat.search(terms, 1)
    row["flat_best_ok"] = bool(top and top[0] in gold)
    row["flat_nf_ok"] = not gold and not top
    return row


def run_corpus(name: str, semantic: bool, agent_picks: bool = True) -> list[dict]:
    corpus = load_corpus(name)
    flat = flat_baseline(corpus)
    with tempfile.TemporaryDirectory(prefix=f"ihmt-aq-{name}-") as tmp:
        memory, owner, corrected = build_store(corpus, Path(tmp), semantic, agent_picks)
        rows = [score_question(q, memory, owner, corrected, flat) for q in corpus["questions"]]
        memory.close()
    for row in rows:
        row["corpus"] = name
    return rows


def share(rows: list[dict], key: str) -> str:
    if not rows:
        return "—"
    hits = sum(1 for r in rows if r.get(key))
    return f"{100 * hits / len(rows):.0f} % ({hits}/{len(rows)})"


def summary(rows: list[dict]) -> dict:
    answerable = [r for r in rows if r["kind"] in ANSWERABLE_KINDS]
    unanswerable = [r for r in rows if r["kind"] == "unanswerable"]
    single = [r for r in rows if r["kind"] != "ambiguous"]
    present = [r for r in rows if r["kind"] == "present"]
    seen = [r for r in answerable]
    return {
        "questions": len(rows),
        "best": share(answerable, "best_ok"),
        "top3": share(answerable, "top3"),
        "seen": share(seen, "seen"),
        "false NF": share(answerable, "false_nf"),
        "NF ok": share(unanswerable, "nf_ok"),
        "spurious AMB": share(single, "spurious_amb"),
        "present": share(present, "best_ok"),
        "stale BEST": share(answerable, "stale"),
        # a question two memories answer differently, answered AMBIGUOUS listing both
        "AMB flagged": share([r for r in rows if r["kind"] == "ambiguous"], "amb_flagged"),
        "clue": share([r for r in rows if r["kind"] == "ambiguous"], "clue_ok"),
        "tokens (median)": f"{statistics.median(r['tokens'] for r in seen):.0f}" if seen else "—",
        "BEST right by confidence": calibration(rows),
        "flat best": share(answerable, "flat_best_ok"),
        "flat NF ok": share(unanswerable, "flat_nf_ok"),
    }


def calibration(rows: list[dict]) -> str:
    """How often a BEST answer is right in each confidence band (answerable questions;
    a BEST on an unanswerable question is wrong)."""
    bands = [(0.0, 0.4), (0.4, 0.6), (0.6, 1.01)]
    shown = [r for r in rows if r["verdict"] == "BEST" and r["kind"] != "ambiguous"]
    parts = []
    for lo, hi in bands:
        band = [r for r in shown if lo <= r["confidence"] < hi]
        right = sum(1 for r in band if r["best_ok"])
        label = f"<{hi:.1f}" if lo == 0 else f"≥{lo:.1f}"
        parts.append(f"{label}: {right}/{len(band)}")
    return ", ".join(parts)


def kind_table(rows: list[dict]) -> str:
    head = "| kind | n | best | top3 | seen | falseNF | NF ok | spurAMB | stale | clue | tokens | flat best |"
    lines = [head, "|" + "---|" * 12]
    by_kind = defaultdict(list)
    for row in rows:
        by_kind[row["kind"]].append(row)
    for kind in KIND_ORDER:
        group = by_kind.get(kind, [])
        if not group:
            continue

        def pct(key: str, group=group) -> str:
            return f"{100 * sum(1 for r in group if r.get(key)) / len(group):.0f}"

        amb = kind == "ambiguous"
        lines.append(
            f"| {kind} | {len(group)} | {'—' if amb or kind == 'unanswerable' else pct('best_ok')} "
            f"| {pct('top3') if kind != 'unanswerable' else '—'} "
            f"| {pct('seen') if not amb and kind != 'unanswerable' else '—'} "
            f"| {pct('false_nf') if kind != 'unanswerable' else '—'} "
            f"| {pct('nf_ok') if kind == 'unanswerable' else '—'} "
            f"| {pct('spurious_amb') if not amb else pct('amb_flagged') + ' flagged'} "
            f"| {pct('stale')} | {pct('clue_ok') if amb else '—'} "
            f"| {statistics.median(r['tokens'] for r in group):.0f} "
            f"| {pct('flat_best_ok') if kind != 'unanswerable' else pct('flat_nf_ok')} |"
        )
    return "\n".join(lines)


def print_misses(rows: list[dict]) -> None:
    for row in rows:
        if row["kind"] == "unanswerable":
            ok = row["nf_ok"]
        elif row["kind"] == "ambiguous":
            ok = row.get("clue_ok") and row.get("amb_flagged")
        else:
            ok = row["best_ok"] and row["seen"]
        if ok:
            continue
        print(
            f"--- {row['corpus']} {row['id']} [{row['kind']}] {row['question']}\n"
            f"    gold={row['gold']} verdict={row['verdict']} best={row['best']} "
            f"ranked={row['ranked']} conf={row['confidence']} tokens={row['tokens']}"
        )
        print("    " + row["text"][:600].replace("\n", "\n    "))


def _answer_one(job: tuple[str, bool, bool]) -> tuple[str, list[dict], dict[str, int], float]:
    """One corpus answered: its rows, how its `replaces` pointers fared, its seconds."""
    name, semantic, picks = job
    REPLACES_TALLY.clear()
    started = time.perf_counter()
    rows = run_corpus(name, semantic, picks)
    return name, rows, dict(REPLACES_TALLY), time.perf_counter() - started


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--set", choices=sorted(SETS), action="append")
    parser.add_argument("--corpus", action="append", help="a corpus name (repeatable)")
    parser.add_argument("--semantic", action="store_true", help="with the semantic extra")
    parser.add_argument("--misses", action="store_true", help="print every miss")
    parser.add_argument("--json", help="write every scored row to this file")
    parser.add_argument("--write", action="store_true", help="record in RESULTS.md")
    parser.add_argument(
        "--no-picks",
        action="store_true",
        help="the agent never picks among a correction's candidates (the protocol until the "
        "thirty-sixth session)",
    )
    parser.add_argument(
        "--jobs", type=int, default=1, help="corpora answered at once, one process each"
    )
    args = parser.parse_args(argv)
    names = list(args.corpus or [])
    for chosen in args.set or ([] if names else ["dev"]):
        names += SETS[chosen]
    all_rows: list[dict] = []
    picks = "never picks" if args.no_picks else "picks the memory it corrects when listed"
    report = [
        f"Machine: {machine()}. Mode: {'semantic' if args.semantic else 'lexical'}. When a "
        f"correction's `replaces` lists candidates, the agent {picks}.",
        "",
    ]
    tally: dict[str, int] = defaultdict(int)
    work = [(name, args.semantic, not args.no_picks) for name in names]
    for name, rows, replaces, took in in_processes(_answer_one, work, args.jobs):
        all_rows += rows
        for status, count in replaces.items():
            tally[status] += count
        where = next((s for s, members in SETS.items() if name in members), "other")
        print(f"\n== {name} ({where}, {len(rows)} questions, {took:.0f} s)")
        report.append(f"### {name} ({where})")
        report.append("")
        for key, value in summary(rows).items():
            print(f"  {key:16} {value}")
            report.append(f"- {key}: {value}")
        report.append("")
        table = kind_table(rows)
        print(table)
        report += [table, ""]
    for label, members in SETS.items():
        chosen = [r for r in all_rows if r["corpus"] in members]
        if chosen and len(names) > len(members):
            report += [f"### all {label} corpora", ""]
            report += [f"- {key}: {value}" for key, value in summary(chosen).items()] + [""]
    if len(names) > 1:
        print("\n== all")
        for key, value in summary(all_rows).items():
            print(f"  {key:16} {value}")
    pointers = ", ".join(f"{status} {count}" for status, count in sorted(tally.items()))
    print(f"\n`replaces` pointers: {pointers}")
    report += [f"`replaces` pointers of all corpora run: {pointers}.", ""]
    if args.misses:
        print_misses(all_rows)
    if args.json:
        Path(args.json).write_text(json.dumps(all_rows, indent=1), encoding="utf-8")
    if args.write:
        write_section(SECTION + (" — semantic" if args.semantic else ""), "\n".join(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
