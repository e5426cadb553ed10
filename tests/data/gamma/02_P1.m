Network 02_P1 {
Layer L02 {
Type: CONV
Dimensions { K: 64, C: 64, Y: 224, X: 224, R: 3, S: 3 }
Dataflow {
TemporalMap(3,3) S;
SpatialMap(1,1) C;
TemporalMap(1,1) X';
TemporalMap(35,35) K;
TemporalMap(3,3) R;
TemporalMap(223,223) Y';
Cluster(7,P);
TemporalMap(1,1) C;
TemporalMap(1,1) K;
TemporalMap(3,3) S;
SpatialMap(1,1) Y';
TemporalMap(3,3) R;
TemporalMap(1,1) X';
}
}
}
