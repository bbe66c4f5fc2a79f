"""Common given names, folded to lower case without accents.

Used to tell a person's first name ("Luis") from a product's first word ("GitHub Actions",
"Google Play"): two memories speaking of Luis Ortega and Luis Pardo are about two people, two
speaking of GitHub Actions and GitHub Pages are not; and, for a question asking who, which
capitalised words in a memory are people. About 3,400 names: those most common in Spain and
Latin America (with Catalan, Basque and Galician forms), Portugal and Brazil, the
English-speaking world, the rest of Europe, Turkey, the Arab world, Iran and Israel, Africa,
South Asia and East and South-East Asia, with the short forms people go by at work ("Sam",
"Montse"). They were written from general knowledge, not from any corpus. A name that is also
an everyday word or a place ("Una", "Loan", "Sydney", "Robin"), or has three letters or fewer
(a few common ones aside), is left out: read as a person it would make a sentence's first word
someone. A name missing here only means two namesakes are not told apart.
"""

from __future__ import annotations

_NAMES = """
aakash aaliyah aamir aarav aaron aarti abbas abby abdi abdirahman abdoulaye abdul abdullah
abdullahi abdulrahman abebe abel abena abhijit abhinav abhishek abigail abraham abril
abubakar achieng adaeze adam adama adan adebayo adel adela adil aditi aditya adnan adolfo
adria adrian adriana adriano adrien adwoa afonso afua agata agatha agathe agne agnes agnese
agnieszka agueda agung agus agustin agustina ahmad ahmed ahmet aida aidan aiden aikaterini
aiko ailsa aiman ainara aine ainhoa aino aisha aishwarya aisling aissatou aitana aitor
aitziber ajay akash akiko akinyi akira akos akosua akua alain alan alasdair alba albert
alberto aled alejandra alejandro aleksander aleksandr aleksandra aleksei aleksi alemayehu
alena ales alessandra alessandro alessia alessio alex alexa alexander alexandra alexandre
alexandros alexandru alexei alexey alexis alfie alfonso alfredo ali alia alice alicia alicja
alina aline alisha alison alistair allen allison ally alma almaz alok alonso alper alun
alvaro alyssa amadou amaia amaka amal amanda amandeep amani amanuel amara amelia amelie amin
amina aminata amine aminu amir amira amit amna amparo amrita amy ana anabel anais anan anand
ananya anas anastasia anastasios anatoly anca ander anders anderson andi andile andoni andre
andrea andreas andreea andrei andrej andres andrew andrey andrii andris andrius andriy
andrzej andy ane anete angel angela angeles angelica angelika angeliki angelo angelos angus
ania anika anil anirudh anis anish anita anja anjali ankit ankita ankur ann ann-marie anna
annalisa anne anne-marie anne-sophie anneke annemarie annette annie annika anouk anselmo
anthony antoine anton antonella antoni antonia antonija antonin antonio antonios antonis
antti anuj anurag anxo aoife apostolos araceli aran arantxa arantza aras arash arben archana
archer archie arda ariadna ariana arief ariel arif arina aris arjan arjen arjun armin arnab
arnau arnaud arnav arne aroa aroha aron arta artem arthur artur arturo artyom arun arvind
asad asaf asen asha ashish ashley ashok ashraf ashwin asier asif asli astrid asuncion atanas
athanasios atieno atif attila audrey audrius aurelie aurelien aurelio aurora avinash avraham
axel ayaan ayaka ayanda ayesha aylin ayman ayodele ayoub ayse ayumi azadeh aziz azlan azman
azra azucena babak babatunde bahar bahram balaji balazs baltasar bambang banu baptiste barak
baraka barbara barbora baris barry bartek bartolome bartosz bashir basia basilio bastien
bayu beata beate beatrice beatriz beau becca becky begona bekele bela belen bella ben bence
benedetta benedict bengt benito benjamin benny benoit beppe bereket berk bernard bernardo
bernd berta bertrand besa besnik beth bethany beto bettina betty beverly bianca bijay bikash
bilal biljana bill billy bimal binod binta birgit bishal bishnu bjorn blake blanca blas
blerim blerta boaz bob bobby bogdan bohdan boitumelo bojan bojana bongani bonnie bora boris
borislav borja boubacar boyan bradley brais bram brandon branislav branka branko brecht
brenda brendan brent brett brian brianna bridget brigitta brigitte britt britta brittany
brooke bruce bruna bruno bryan bryn budi buhle bulent burak burcu buse busra caio caitlin
caleb callum calum calvin camelia cameron camila camilla camille camilo candela cansu
caoimhe carina carl carla carles carlo carlos carlota carly carme carmen carol carolina
caroline carolyn carrie carter casey casimiro cassie catalin catalina catarina caterina
catherine cathy catriona cayetana cecilia celia celine ceren ceri cerys cesar chaewon
chaiwat chandima chandra chantal charles charlie charlotte charmaine charo chebet cheikh
chema chen cheryl chetan chiara chidi chika chinedu chinwe chioma chipo chisomo chloe chris
christian christina christine christoph christophe christopher christos chukwuemeka chul
chus cian ciara ciaran cillian cindy cintia cinzia ciprian cirilo citra claire clara clare
claudia claudio claudiu clemence clement clemente clive clodagh cody colin colleen colm
conall concepcion connie connor conor constantin constanza consuelo cora corey cormac cory
cosmin costanza courtney craig cris cristian cristina cristobal csaba cuong curtis cynthia
cyrus daan daeun dafna dafydd dagmar dagny daiana daiki daisuke dalia damian damien damir
damla damon dan dana dani daniel daniela daniele danielle daniil danijela danilo danny dante
dara daria dario darius dariush dariusz darja darko darnell darragh darren dave davi david
davide davis davor dawa dawid dawit dayo debbie debora deborah debra declan deepa deepak
deepika deirdre delia delphine denis denisa denise deniz dennis denys deon derek dermot
derrick derya deshawn desislava desmond despina despoina dewi deyan dhruv dian diana diane
diarmuid didier diego dieter dijana dilek dilini dilshan dima dimas dimitar dimitra dimitri
dimitrios dimitris dina dineo dinesh dino diogo dionysis dipesh dirk divya diya djordje
dmitri dmitriy dmitry dmytro doina dolores domenico domingo dominic dominik dominika
dominique donal donald donghyun doni donna dora doris dorota dorothy douglas dragan dragana
dragos drita driton duarte dumitru duncan dusan dustin duygu dwayne dylan eamon eamonn ebba
ebru eddie edem edgars edin edoardo edson eduard eduardo edurne edward edwin edyta eero efua
egor ehsan eider eileen eilidh eimear einar eirik eirini eitan ekaterina elaine eleanor
elena eleni eleonora elham eli elias elif elijah elin elina elisa elisabet elisabeth
elisabetta elise eliska eliza elizabeth elizaveta elke ella ellen ellie elliot elodie eloise
eloy elsa eluney elvira elzbieta ema emad emanuele emeka emer emil emilia emiliano emilie
emilija emilio emily emin emina emine emir emma emmanuel emmett emre encarna encarnacion
enda eneko enes engin eniko enric enrico enrique enzo eoghan eoin erdem eren erez eric erica
erik erika erin erkan ermias ernesto ernie ernst erol erwan erzsebet esmee esmeralda espen
esperanza esra esteban estefania estela estelle ester esther estibaliz eszter ethan etienne
euan eugene eugenia eugenio eunji eunyoung eva evan evangelia evangelos evelyn evgenia
evgeny evie ewan ewelina eyal ezequiel ezra fabian fabien fabio fabiola fabrice fabrizio
facundo fadi fahad faisal faizal fajar fanny farah farai fares farhad farhan farid farzad
farzana fatemeh fatih fatima fatin fatma fatmir fatou federica federico fedor felipe felix
femi femke feng ferenc fergal fergus fermin fernanda fernando ferran ffion fidel filip
filipa filipe filippo filomena finn fiona fionn fionnuala firas firat fitri flavia flavio
flora florencia florent florian florin floris folake fotini fotis fran frances francesc
francesca francesco francisca francisco franck franco francois francoise frank frankie frans
frantisek franz franziska fraser fred freddie frederic frederick frederik fredrik freja
freya frida fritz frode funmi furkan fyodor gabe gabi gabor gabriel gabriela gabriele
gabriella gabrielle gaby gael gaia gail gaizka gala galina gamze ganesh garazi gareth gary
gaspar gaurav gavin gayan gbenga gediminas geert geeta geir gemma genaro genevieve gentian
geoff geoffrey george georgi georgia georgiana georgios geraint gerald gerard gerardo
gergana gergely gergo gerhard german gerrit gerry gert getachew gethin ghassan gheorghe
giacomo gianfranco giang gianluca gianni giannis giedre gigi gijs gilberto giles gilles gina
ginevra gino giorgia giorgio giorgos giovanna giovanni girish gisela gisele gita giulia
giuseppe giuseppina gizem gleb glenn gloria gokhan goncalo gonzalo gopal goran gordana
gordon gorka gosia grace graciela graham grainne greg gregoire gregor gregory greta grigoris
grzegorz guadalupe guido guilherme guillaume guillem guillermo gunnar gunter gurpreet
gustavo gwen gwyneth gyorgy gyula habib haeun hafiz hafsa haider haile hailey haiyan hakan
hakim hala haley halil halima halyna hamid hamish hamza hana hanan hande hanh hani hannah
hanne hannes hannu hans haoran harald haris harish harold harpreet harriet harrison harry
haruka haruto harvey hasan hassan hawa hayden hayley hayoon heba hector heidi heike heikki
heiko heinz heitor helder helen helena helene helga helge helmi helmut heloisa hemi hendra
hendrik henk henok henri henrik henrique henry hermann hernan heru hiba hideki hien hieu
hikari hila hilda hilde hina hira hiroki hiroko hiroshi hiroyuki hisham hitesh hitomi hiwot
hoang hodan holger honza hoon horst hossein howard hristo hrvoje huda hugh hugo huong
huseyin hussein huw huyen hyejin hyun hyunjoo hyunjun hyunwoo hywel iago ian ibai ibon
ibrahim ibrahima ichiro idris ieva ifeanyi ifeoma ignacio igor ihor ikenna iker ilan ilaria
ildiko ilhan ilias ilir ilona ilse ilya ilze iman imani imanol imogen imran imre inaki inbal
indah indra indrajit indrek ines inese inga inge ingeborg ingo ingrid inigo inma inmaculada
inna intan ioana ioannis iona ionela ionut ipek irem irena irene irfan iria irina irini iris
irune iryna isaac isabel isabella isabelle isak isha ishaan isidro iskandar ismael ismail
isobel istvan isuru itay itziar iulia iulian ivan ivana ivica ivo iwan iwona izabela izzy
jaan jaap jabu jacek jacinto jack jackie jaco jacob jacopo jacqueline jacques jacqui jaehyun
jaewon jaime jake jakob jakub jamal james jamie jamila jan jana jane janet jani janice
janine janis jannat janne jannik janos janusz jared jari jaroslav jaroslaw jasmin jasmina
jasmine jasna jason jaume javad javed javi javier javiera jawad jay jaya jayden jayson jean
jean-baptiste jean-claude jean-francois jean-jacques jean-louis jean-luc jean-marc jean-
marie jean-michel jean-paul jean-philippe jean-pierre jeanne jeff jeffrey jelena jelle jen
jenna jenni jennifer jenny jens jeremy jermaine jeroen jerome jerry jerzy jesica jesper jess
jesse jessica jessie jesus jian jianguo jianhua jiawei jieun jiho jihoon jihye jill jillian
jim jimena jimin jimmy jing jingjing jinho jinwoo jiri jirka jisoo jisung jitka jiwoo jiyeon
joachim joakim joan joana joanna joanne joao joaquin jocelyn jodie joe joel joerg joey johan
johanna johannes john johnny jojo joko jolanda jolanta jomar jon jonah jonas jonathan jong
jongmin jonny joon joonas joost jordan jordi jorg jorge jorgen joris jose joseba josef
josefa josefina josefine josep joseph josephine josh joshua josie josip josu jovan jovana
joyce jozef juan juana juanjo juanma jude judit judith judy juergen juha juho jukka julen
jules julia julian juliana julie julien juliet julieta juliette julio juma junaid junghee
jungho junho junjie juraj jurgen juris jussi justin justina justinas justine justyna jutta
jyoti kaan kabelo kacper kadri kagiso kai kaisa kaitlyn kalle kamal kamau kamil kamila
kamran kanya kaori kara karabo karan kareem karel karen karim karin karina karine karl karl-
heinz karla karlis karol karolina karolis karoly karthik kartik kartika kashif kasia kaspar
kaspars kasper kasun katalin katarina katarzyna kate katerina kateryna katharina katherine
kathleen kathrin kathryn kathy katie katja katlego katrin katrina katy katya kaveh kavita
kavya kayla kayode kazuki kebede kees kehinde keiko keira keisha keith kelechi kelsey kelvin
kemal kemi ken kenan kendra kenichi kenji kenneth kenny kenta kerem keren kerry kersti
kerstin ketut kevin khadija khairul khaled khalid khalil khanh khoa kian kiara kieran kiko
killian kim kimani kimberly kimmo kinga kiprono kira kiran kiril kirill kirk kirsi kirsten
kirsty kjell klara klaudia klaus knut kobus kodwo koen kofi koji kojo koldo konstantin
konstantina konstantinos koos kostas kostya kourosh krasimir krishna kristaps kristen
kristian kristina kristine kristof kristyna krisztian krisztina krystian krystyna krzysztof
ksenia kuba kudzai kumar kumara kumari kunal kunle kurniawan kurt kwabena kwadwo kwaku kwame
kwan kwasi kwesi kyle kylie kyoko kyriakos kyungsoo lachie lachlan laci ladislav lahiru laia
lajos lakshmi lalo lamar lamine lara larisa larissa larry lars lasse laszlo latoya laura
lauren laurence laurens laurent lauri laurynas lautaro lawrence laxman laxmi layla lazar lea
leah leandro leanne lebo lebogang leena lefteris leif leigh leila leire lejla lena lene
lenka lennart lenny leo leon leonard leonardo leonid leonidas leonie leonor lerato lesley
leslie lestari leszek leticia levente levi lewis lexi leyla liam liang liat libby libor
lidia lidija lieke liesbeth lieven lihua liis liisa lijun lili lilian lillian lily lina
linas linda lindani lindiwe lindsay lindsey linh linnea linus lior liping lisa liu livia
liwei liz liza lizzie ljiljana lloyd lluis logan loic lola loli lorcan loredana lorena
lorenzo lori lorna lorraine lotta lotte lottie louis louise lourdes lowri luana lubomir luca
lucas lucia lucian luciana luciano lucie lucija lucy ludmila ludovic ludovica ludvig luis
luisa luiz luiza luka lukas lukasz luke luminita lungile lupe lupita luuk luz lwazi lydia
lynne lyubomir lyudmila maarja maarten macarena maciej mackenzie madalena madalina maddie
madeleine madeline madis mads maeve mafalda magda magdalena maggie magnus maha maher mahesh
mahmoud mahmud mahsa maija maike mairead maite maja majid makoto maksym malcolm malena
malgorzata malik malin mamadou mandla mandy manfred manish manisha manoj manolis manon
manpreet mansoor mansour mantas manu manuel manuela mar mara marc marcel marcela marcello
marcelo marcin marcio marco marcos marcus marek margaret margarida margarita margaux
margherita margot margus mari maria mariah mariam mariama marian mariana marianne mariano
maribel maricel marie marie-claire marie-eve marieke marijn marilyn marina mario marion
marios marisa marisol marissa marit marius mariusz mariya marja marjan marjolein mark
marketa markku marko markus marleen marloes marta martha martijn martim martin martina
martine martins marton marty martyna marvin marwa marwan mary maryam masahiro masaki masha
masoud massimo masud matei matej mateja mateo mateus mateusz matheus mathias mathieu matias
matilda matilde matt matteo matthew matthias matthieu matthijs matti mattia mattias matus
maud maura maureen maurice mauricio maurizio mauro max maxi maxim maxime maximilian maximo
maya mayank mayra mayte mayumi mazen mbali meabh meena meera mees meg megan megha megumi
mehdi mehmet mehrdad mei meiling melanie melina melinda melisa melissa meng mercedes merche
meredith meron mert merve meryem mette mhairi mia micaela michael michaela michail michal
michalis michel michela michele michelle michiel michiko mick mickael mickey migle miguel
miha mihaela mihai mihail mihaly miho mika mikael mike mikel mikey miki mikkel mikko miklos
mikolaj mikyung mila milad milagros milana milena milica millie milo milos min mindaugas
ming minh minho minji minjun minna minseok miranda mircea mireia miren miriam mirjam mirjana
mirko miroslav miroslaw mirza misaki misha mitch mitchell miyoung miyuki moana mohamed
mohammad mohammed mohan mohit mohsen moira moises molly mona monica monika monique montse
montserrat morag moran morgane moritz morten morteza moshe mostafa moussa mpho muhammad
mukesh muna murali murat murilo musa mustafa muthoni mwangi mykhailo mykola mylene myriam
nabil nabila nacho nadav nadeem nader nadezhda nadia nadine naeem nafisa nahia naiara naledi
nancy nandi nandini nando naoki naoko naomi narayan naresh narges nasim nasir nasrin nasser
nastya natalia natalie nataliya natasa natasha nate nathalie nathan nathaniel nattapong
naveed naveen navid nayara nazanin nazar neda neema neeraj nefeli neha neil nele nelson
nemanja nenad nerea neringa nestor ngoc ngozi nhlanhla nhung niall niamh nicholas nicky nico
nicola nicolae nicolas nicole nicoleta nicolo nida nidhi niels nieves nigel niina nika
nikhil niki nikita nikki niklas niko nikola nikolai nikolaos nikolay nikolett nikos niloufar
nils nima nimal nina ning nisha nishant nitin njeri njoki nkechi nnamdi nneka noa noah noam
noel noelia noemi noemie nokuthula nolan nomsa nomvula noor noora nora norah norbert noreen
norma norman nour noura novak nuala nuno nuria nurul nusrat nuwan nyasha oana obinna oceane
ochieng octavio oguz oisin okan oksana olaf olav oleg oleh oleksandr oleksiy olena olga
oliver olivia olivier oliwia olli ollie olof omar omer omid omondi omri ondra ondrej onur
onyango opio oren orestis orhan oriol orla orlaith orsolya osama oscar oskar oskari oskars
osman ostap osvaldo otavio otieno otto ouma ousmane ovidiu owain owen ozan ozge ozgur ozlem
pablo paco paddy padraig paige paivi palesa pallavi paloma pamela panagiotis pancho pankaj
panos paola paolo paqui parisa parth partha pascual pasha pasi patricia patricio patrick
patrik patrizia patrycja patryk patxi pau paul paula paulina pauline paulius paulo pavan
pavel pavla pavlo pavlos pavol pawan pawel pedro peggy pekka pema penelope peng pepa pepe
pernille perry petar pete peter petr petra petri petro petros petter petya phil philip
philipp philippe phoebe phong phuc phuong pierluigi piero pierre pierre-yves piers piet
pieter pietro pilar pili pinar piotr piyush plamen pol polina pooja poonam povilas pradeep
prakash pranav prasad prasert prashant prateek praveen preeti priit priscila priya priyanka
przemek puja puneet putra putri putu qian qiang qing quang quentin quim quinn quique quynh
rachel rachelle rachid radek radha radhika radu rafa rafael rafaela rafal raffaele raffaella
rafiq raghav ragnar rahel rahim rahman rahul raimundo rainer raj raja rajan rajat rajeev
rajesh rajiv rakesh ralf ralph raluca ramesh rami ramin ramiro ramon ramona randy rania
raphael raquel rares rasha rashid rashmi rasmus rastislav ratna rattana raul ravi raymond
razvan rebeca rebecca reda reem rees refilwe reggie regina reid reiko reinaldo reiner reka
rekha remco remedios remi renata renate renato renaud rene renee reza rhea rhian rhiannon
rhodri rhys riaan ricard ricardo riccardo richard richie rick ricky riitta rika riley rini
rishabh rishi risto rita ritesh ritu riya rizki rizky rizwan robbie robert roberta roberto
roberts rocio rodney rodolfo rodrigo roel rogelio roger rohan rohit roisin rokas rolando
rolf romain roman romeo romina rommel ronald ronaldo ronan ronnie roos rory rosa rosalia
rosario rose roshan rosie rositsa ross rowan rowena roxana roy roya ruairi ruan ruben rumen
rune rupert ruslan russ russell rustam rut rutendo rutger ruth ruud ruwan ryan ryota ryszard
saad saara sabina sabine sabrina sacha sachin sade sadia sadie saeed sagar sahar sahil saima
sajid saki sakura salah saleh salim sally salma salman salome salvador salvatore sam
samantha sameer sami samir samira sammy sampath samson samuel sandeep sander sandile sandor
sandra sandrine sangmin sangwoo sani sanja sanjay sanjeev sanjib sanne santi santiago santos
santosh saoirse saori sara sarah sari sasa sasha saskia satish satoshi satu saul saurabh
sayaka scarlett scott seamus sean sebastiaan sebastian sebastien seda seema selam selasi
selena selim selin selma senad senthil seojun seoyeon seoyun sepideh seppo serdar seren
serena serge sergei sergey sergi sergio sergiu serhii serhiy serkan seun seung seungmin
severino shadi shahid shahin shahzad shai shalini shamim shane shani shankar shannon sharif
sharmila sharmin sharon shaun shauna shawn shay shehu sheila shiela shilpa shimon shin
shinji shiori shira shirin shirley shlomo shoaib shona shota shreya shruti shubham shweta
shyam sian sibongile sibusiso siddharth sidra sienna signe sigrid sigurd siim silas silje
silke silvia silviu silviya sima simon simona simone simran sina sinan sinead sini siobhan
siphiwe sipho siriporn sita siti siyabonga sizwe sjoerd skye slamet slava slavica slobodan
sneha snezana snezhana sofia sofie sohail sohel soledad solomon solveig somchai somporn
somsak somsri sonam sonia sonja soojin sophia sophie soraya sorcha soren sorin sota sotiris
souleymane sourav soyeon spencer spyros srikanth srini srinivas sriram stacey stacy stan
stanislav stanislaw stanley stavros stefan stefania stefanie stefano stefanos stelios stella
stepan steph stephane stephanie stephen steve steven stewart stian stijn stoyan stuart subin
sujin sultana sumit sundar sungho sungmin sunhee sunil sunita supaporn supun surachai suraj
suresh susan susana susanna susanne susie suzana suzanne sven svenja sveta svetlana
svetoslav svitlana swati syafiq sylvain sylvia sylvie sylwia szabolcs szilvia szymon tadas
tadesse tadeusz tadhg taehyun tafadzwa taha tahir taiwo takahiro takashi takeshi takuya
talha tali talia tama tamar tamara tamas tamer tammy tamsin tania tanja tanvir tanya tara
taras tarek tarik tariq tarja taro tarun tash tasha tasos tatenda tatiana tatyana taufik
tebogo ted teddy teemu tegan teguh tendai tenzing teo teodora teodoro teresa tereza terje
tero terry tesfaye tess tessa tetiana tetyana teun tewodros thabo thais thanasis thanawat
thandeka thanh thao tharindu thea themba theo theodore theodoros theresa therese thiago
thibault thibaut thierry thijs thilina thilini thomas thorsten thulani thuy tiago tibor
tiffany tigist tiina tiit tilly tim timea timmy timo timothy timur tina tinashe ting
tingting tiziana tobi tobias toby todd todor tolga tolu tom tomas tomasz tomek tomer
tomislav tommaso tommi tommy tomoko toni tony toomas torbjorn torsten toru tove toyin tracey
tracy trang trent trevor triin trine trinh trish tristan trond trung tshepo tsvetan
tsvetelina tuan tudor tugba tumelo tunde tuomas tushar txema tyler tyrone uche ugo ugur
ulises ulrich ulrike umar umberto umut unai uros ursula urszula usha usman uwe vaclav vadim
vadym vaibhav valentin valentina valeri valeria valerie valerio valery valon vanesa vanessa
vangelis vanya varun vasil vasile vasileios vasiliki vasilis vasily vasyl vedran veerle
venkat venkatesh vera verena verity veronica veronika veronique vesa veselina vesna vicent
vicente vicky victor victoria vidya vijay vikas vikram viktor vinay vince vincent vincenzo
vineet vinh vinicius vinny vinod violeta viorel virginia virginie visar vishal vishnu vitaly
vitor vitoria vittoria vittorio vivek vivian viviana vivien vjosa vlad vladimir vojtech
volkan volker volodymyr vova vusi vyacheslav vytautas wael wahyu wale waleed walid walt
walter wambui wangari wanida wanjiku wanjiru waqas warren waseem wayan wayne wei weiwei
wendy werner weronika wesley whitney wichai wiktor wiktoria willem willi william wiremu
wojciech wojtek wolfgang woojin wout wouter wyatt xabi xabier xavi xavier xiaodong xiaohong
xiaojun xiaoli xiaomei xiaoming xiaowei xiaoyan xiaoyu ximena xinyi xoan xolani xose xuan
yaakov yael yahya yair yaiza yana yann yannick yannis yara yared yaron yaroslav yasemin yash
yasin yasir yasmin yasser yegor yehuda yejin yelena yemi yevhen yichen yifan yigit yiming
ying yinka yiorgos yitzhak yoav yogesh yohannes yoko yolanda yonas yonatan yong yoni yordan
yosef yossi younes younghee youngho yousef youssef yudi yufei yuhan yuji yuki yuko yulia
yuliya yumi yuna yura yuri yurii yuriy yury yusuf yusuke yuta yuting yuto yuval yves yvonne
zach zachary zack zahid zahra zaid zain zainab zakaria zander zane zanele zara zarina
zbigniew zdenek zeeshan zehra zeinab zeljko zeynep zhen zhenya zhiwei ziad ziga zihan zinhle
zita zixuan zlatko zoe zoey zofia zoli zoltan zoran zorica zornitsa zsofia zsolt zsuzsa
zsuzsanna zubair zulkifli zurine zuzana zuzanna
"""

GIVEN_NAMES = frozenset(_NAMES.split())
