Network 07_P1 {
Layer L07 {
Type: CONV
Dimensions { K: 512, C: 512, Y: 30, X: 30, R: 3, S: 3 }
Dataflow {
TemporalMap(29,29) Y';
SpatialMap(2,2) C;
TemporalMap(3,3) R;
TemporalMap(1,1) K;
TemporalMap(3,3) S;
TemporalMap(30,30) X';
Cluster(6,P);
SpatialMap(1,1) X';
TemporalMap(3,3) S;
TemporalMap(3,3) R;
TemporalMap(2,2) C;
TemporalMap(1,1) Y';
TemporalMap(1,1) K;
}
}
}
