"""Common given names, folded to lower case without accents.

Used to tell a person's first name ("Luis") from a product's first word ("GitHub Actions",
"Google Play"): two memories speaking of Luis Ortega and Luis Pardo are about two people, two
speaking of GitHub Actions and GitHub Pages are not. The list covers the names most common in
Spain and Latin America (with Catalan, Basque and Galician forms), Portugal and Brazil, the
English-speaking world, the rest of Europe, and the names colleagues from Africa and Asia
often go by at work. It was written from general knowledge, not from any corpus. A name
missing here only means two namesakes are not told apart; nothing else reads this list.
"""

from __future__ import annotations

_NAMES = """
aaron abel abigail abril adam adan adela adolfo adria adrian adriana adrien agata agatha
agnes agueda agustin agustina ahmed aida aidan ainara ainhoa aitana aitor aitziber ajay
akira akosua alain alan alba albert alberto alba alejandra alejandro aleksandra alessandra
alessandro alex alexa alexander alexandra alexandre alexei alfonso alfredo ali alice alicia
alina alison alma alonso alvaro amaia amanda amara amelia amina amir amparo amy ana anabel
anais anders andoni andre andrea andreas andrei andres andrew andy ane angel angela angeles
angelica angelo anita anja ann anna anne annika anselmo antoine anton antonella antoni
antonia antonio anxo aran araceli arantxa arantza ariadna ariel arjun arnau arne aroa arturo
asha asier astrid asuncion aurelio aurora axel ayesha ayumi azucena baltasar barbara bartolome
basilio beatriz begona belen ben benedict benjamin benito berta bertrand bianca bill bjorn
blanca blas borja boris brais brandon brenda brian bridget bruno bryan camila camille candela
carina carla carles carlos carlota carme carmen carol carolina caroline casimiro catalina
catherine cayetana cecilia celia cesar chantal charles charlotte chen chiara chidi chloe
chris christian christina christine christopher chukwuemeka cintia cirilo clara clare claudia
claudio clemente colin concepcion conor constanza consuelo cristian cristina cristobal
cynthia dagny daiana daisuke dalia damian dan dana daniel daniela danielle dario darius david
debora deborah denis denise derek diana diego dimitri dimitris dolores domingo dominik
dominique donald dora dorothy duncan dylan eduard eduardo edurne edward eider eileen elena
eleni elias elisa elisabet elisabeth elizabeth ella ellen eloy elsa eluney elvira ema emil
emilia emiliano emilio emily emma emmanuel encarna encarnacion eneko enrique enzo eric erik
erika ernesto esperanza esteban estefania estela ester esther estibaliz eugenia eugenio eva
evelyn ezequiel fabian fabio fabiola fatima fatou federico felipe felix fermin fernanda
fernando fidel filipa filomena florencia francesc francesca francesco francisca francisco
franco frank frederic frederik gabriel gabriela gaizka gala garazi gaspar gemma genaro
george georgia gerard gerardo german gianluca gilberto gina giorgio giovanni gisela giulia
giuseppe gloria gonzalo gorka grace graciela greta guadalupe guillem guillermo gustavo
hana hannah hans harold harry hassan hector heidi helena helga henrik henrique henry hernan
hilda hiroshi hugo ian ibai ibon ignacio igor iker ilse imanol ines inigo inaki ingrid irene
iria iris irune isaac isabel isabella isidro ismael itziar ivan ivana jacinto jack jacob
jaime jakob james jan jana jane janet jasmine javier javiera jean jeff jennifer jens jeremy
jesica jesus jimena joan joana joao joaquin jocelyn joe johan johanna john jon jonas jonathan
jordan jordi jorge jose josefa josefina joseph josep joshua juan juana judit judith julen
julia julian juliana julie julien julio justin kai kamal karen karim karin karina karl
karla kasia katarzyna kate katherine kathleen kaveh kazuki keiko kenji kenneth kevin kim
kiran klaus koldo kofi kristina kwame laia lara laura lautaro lea leandro leire lena leo
leon leonardo leonor leticia liam lidia lilian lily linda lisa liu liz lola lorena lorenzo
lotte louis lourdes luca lucas lucia luciana luciano lucy luis luisa luka lukas luz magda
magdalena maite malena manuel manuela mar marc marcela marcelo marco marcos margarita
margot mari maria mariana mariano marina mario marisa marisol marius mark marta martha
martin martina mary mateo mateus matias matilde matt matteo matthew maura mauricio max
maximo maxime mehmet mei melanie melisa mercedes mia michael michel michelle miguel mikel
milagros milena min mireia miren miriam mohamed mohammed monica montserrat nacho nadia naiara
nahia naoki natalia natalie nathan nayara nerea nestor nicolas nicole nicolo nieves nikos
nina noa noelia nora norma nuno nuria octavio olga oliver olivia omar oriol oscar osvaldo
owen pablo paloma pamela paola pascual patricia patricio patrick pau paul paula paulina
paulo pavel pedro pepa pepe peter petra philip philippe pierre pieter pilar piotr pol
priya quique rafael rafa rahul raimundo rajesh ramiro ramon raquel raul rebeca rebecca
reinaldo remedios renata rene ricard ricardo richard rita roberta roberto robert rocio
rodolfo rodrigo rogelio roger rolando roman romina ronald rosa rosalia rosario rose ruben
rut ruth ryan sabina sabrina salome salvador samantha samuel sandra santiago santos sara
sarah sebastian sergi sergio severino silvia simon simone sofia soledad sonia sophie
stefan stefano stella stephanie steve steven susana susanne sven takeshi tamara tania tatiana
teodoro teo teresa thiago thomas tim timothy tobias tom tomas toni tony valentin valentina
valeria vanesa vanessa vera veronica vicent vicente victor victoria vincent violeta virginia
wei wendy william xabier xavier xavi ximena xoan xose yaiza yasmin yolanda yuki yusuf zoe
zurine
"""

GIVEN_NAMES = frozenset(_NAMES.split())
