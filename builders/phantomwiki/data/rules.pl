% PhantomWiki relations, v1 semantics. rel(X, Y) reads "Y is the rel of X".
% Base facts: type/2, gender/2, parent(Child, Parent), friend_/2, dob/2, job/2, hobby/2.
% Tabling changes no answer, only how often each is found, so deep chains stay fast.

:- table sibling/2, married/2, cousin/2, grandparent/2, great_grandparent/2.

female(X) :- gender(X, "female").
male(X) :- gender(X, "male").

% Difficulty 1: what an article states.
child(X, Y) :- parent(Y, X).
mother(X, Y) :- parent(X, Y), female(Y).
father(X, Y) :- parent(X, Y), male(Y).
son(X, Y) :- child(X, Y), male(Y).
daughter(X, Y) :- child(X, Y), female(Y).
sibling(X, Y) :- parent(X, P), parent(Y, P), X \= Y.
sister(X, Y) :- sibling(X, Y), female(Y).
brother(X, Y) :- sibling(X, Y), male(Y).
married(X, Y) :- parent(C, X), parent(C, Y), X \= Y.
wife(X, Y) :- married(X, Y), female(Y).
husband(X, Y) :- married(X, Y), male(Y).
friend(X, Y) :- friend_(X, Y).
friend(X, Y) :- friend_(Y, X).

% Difficulty 2.
niece(X, Y) :- sibling(X, S), daughter(S, Y).
nephew(X, Y) :- sibling(X, S), son(S, Y).
aunt(X, Y) :- parent(X, P), sister(P, Y).
uncle(X, Y) :- parent(X, P), brother(P, Y).
grandparent(X, Y) :- parent(X, P), parent(P, Y).
grandmother(X, Y) :- grandparent(X, Y), female(Y).
grandfather(X, Y) :- grandparent(X, Y), male(Y).
grandchild(X, Y) :- grandparent(Y, X).
granddaughter(X, Y) :- grandchild(X, Y), female(Y).
grandson(X, Y) :- grandchild(X, Y), male(Y).
mother_in_law(X, Y) :- married(X, S), mother(S, Y).
father_in_law(X, Y) :- married(X, S), father(S, Y).
son_in_law(X, Y) :- child(X, C), husband(C, Y).
daughter_in_law(X, Y) :- child(X, C), wife(C, Y).
sister_in_law(X, Y) :- married(X, S), sister(S, Y).
brother_in_law(X, Y) :- married(X, S), brother(S, Y).

% Difficulty 3.
great_aunt(X, Y) :- grandparent(X, G), sister(G, Y).
great_uncle(X, Y) :- grandparent(X, G), brother(G, Y).
great_grandparent(X, Y) :- grandparent(X, G), parent(G, Y).
great_grandmother(X, Y) :- great_grandparent(X, Y), female(Y).
great_grandfather(X, Y) :- great_grandparent(X, Y), male(Y).
great_grandchild(X, Y) :- great_grandparent(Y, X).
great_granddaughter(X, Y) :- great_grandchild(X, Y), female(Y).
great_grandson(X, Y) :- great_grandchild(X, Y), male(Y).
cousin(X, Y) :- parent(X, A), parent(Y, B), sibling(A, B), X \= Y.
female_cousin(X, Y) :- cousin(X, Y), female(Y).
male_cousin(X, Y) :- cousin(X, Y), male(Y).

% Difficulty 4.
second_aunt(X, Y) :- great_grandparent(X, G), sister(G, Y).
second_uncle(X, Y) :- great_grandparent(X, G), brother(G, Y).
female_first_cousin_once_removed(X, Y) :- cousin(X, C), daughter(C, Y), X \= Y.
male_first_cousin_once_removed(X, Y) :- cousin(X, C), son(C, Y), X \= Y.

% Difficulty 5.
female_second_cousin(X, Y) :- parent(X, A), parent(Y, B), cousin(A, B), female(Y), X \= Y.
male_second_cousin(X, Y) :- parent(X, A), parent(Y, B), cousin(A, B), male(Y), X \= Y.
